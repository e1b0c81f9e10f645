import Foundation
import Testing
import WarmCache
import WarmCacheBuilder
@testable import WarmCacheUpdates

/// The signed statement's bytes, keys and signer, as docs/bundle-format.md specifies them.
@Suite("Signed statements and keys")
struct StatementFormatTests {
    static let index = IndexDigest(sha256: String(repeating: "ab", count: 32), byteCount: 12_288)
    static let signedAt = Date(timeIntervalSince1970: 1_750_000_000.9)

    @Test("the payload is compact JSON with sorted keys, whole-second UTC times and the documented fields")
    func payload() throws {
        let statement = BundleStatement(index: Self.index, version: 42, signedAt: Self.signedAt,
                                        expiresAt: Self.signedAt.addingTimeInterval(86_400))
        let payload = String(decoding: statement.payloadBytes(), as: UTF8.self)
        #expect(payload == #"{"expiresAt":"2025-06-16T15:06:40Z","format":1,"indexByteCount":12288,"#
            + #""indexSHA256":"\#(Self.index.sha256)","signedAt":"2025-06-15T15:06:40Z","version":42}"#)
    }

    @Test("versions and index sizes past 2^31 sign and verify (Int64 everywhere, as on 32-bit watchOS)",
          arguments: [Int64(3_000_000_000), BundleStatement.maximumVersion])
    func largeVersions(version: Int64) throws {
        let index = IndexDigest(sha256: Self.index.sha256, byteCount: 5_000_000_000)
        let statement = BundleStatement(index: index, version: version, signedAt: Self.signedAt,
                                        expiresAt: Self.signedAt.addingTimeInterval(86_400))
        let read = try SignedStatement.verify(try statement.signed(by: TestKeys.publisher),
                                              trustedKeys: [TestKeys.publisher.publicKey])
        #expect(read.statement.version == version && read.statement.index.byteCount == 5_000_000_000)
        let progress = UpdateProgress(phase: .downloadingBlobs, bytesDone: 3_000_000_000, bytesTotal: 6_000_000_000)
        #expect(progress.bytesTotal - progress.bytesDone == 3_000_000_000)
    }

    @Test("a signature signs DSSE's pre-authentication encoding of the payload")
    func preAuthenticationEncoding() throws {
        let payload = Data("{}".utf8)
        let message = BundleStatement.preAuthenticationEncoding(of: payload)
        #expect(String(decoding: message, as: UTF8.self) == "DSSEv1 40 application/vnd.warmcache.statement+json 2 {}")

        let statement = BundleStatement(index: Self.index, version: 1, signedAt: Self.signedAt,
                                        expiresAt: Self.signedAt.addingTimeInterval(60))
        let file = try statement.signed(by: TestKeys.publisher)
        let envelope = try #require(try JSONSerialization.jsonObject(with: file) as? [String: Any])
        #expect(Set(envelope.keys) == ["payload", "payloadType", "signatures"])
        #expect(envelope["payloadType"] as? String == "application/vnd.warmcache.statement+json")
        let signatures = try #require(envelope["signatures"] as? [[String: String]])
        #expect(signatures.count == 1 && signatures[0]["keyid"] == TestKeys.publisher.keyID)
        let signature = try #require(Data(base64Encoded: signatures[0]["sig"] ?? ""))
        let payloadBytes = try #require(Data(base64Encoded: envelope["payload"] as? String ?? ""))
        #expect(payloadBytes == statement.payloadBytes())
        #expect(TestKeys.publisher.publicKey.isValidSignature(
            signature, for: BundleStatement.preAuthenticationEncoding(of: payloadBytes)))
    }

    @Test("a statement verifies with any one trusted key and reads back; others are refused by kind")
    func verification() throws {
        let statement = BundleStatement(index: Self.index, version: 7, signedAt: Self.signedAt,
                                        expiresAt: Self.signedAt.addingTimeInterval(3_600))
        let file = try statement.signed(by: TestKeys.publisher)
        let read = try SignedStatement.verify(file, trustedKeys: [TestKeys.next.publicKey, TestKeys.publisher.publicKey])
        #expect(read.statement == statement && read.verifiedBy == TestKeys.publisher.keyID && read.data == file)
        #expect(read.keyIDs == [TestKeys.publisher.keyID])
        #expect(try SignedStatement.readUnverified(file).statement == statement)
        #expect(statement.isExpired(at: Self.signedAt.addingTimeInterval(3_600)))
        #expect(!statement.isExpired(at: Self.signedAt.addingTimeInterval(3_598)))

        #expect(throws: StatementError(.untrustedKey(keyIDs: [TestKeys.publisher.keyID]))) {
            try SignedStatement.verify(file, trustedKeys: [TestKeys.next.publicKey])
        }
        // The signature of another payload under the genuine key id.
        var envelope = try JSONDecoder().decode(BundleStatement.Envelope.self, from: file)
        var other = statement
        other.version = 8
        envelope.payload = other.payloadBytes().base64EncodedString()
        let altered = try JSONEncoder().encode(envelope)
        #expect(throws: StatementError(.badSignature(keyID: TestKeys.publisher.keyID))) {
            try SignedStatement.verify(altered, trustedKeys: [TestKeys.publisher.publicKey])
        }
        // A key id is only a hint: a valid signature under a wrong id still counts.
        envelope = try JSONDecoder().decode(BundleStatement.Envelope.self, from: file)
        envelope.signatures[0].keyid = "0000000000000000"
        let renamed = try JSONEncoder().encode(envelope)
        #expect(try SignedStatement.verify(renamed, trustedKeys: [TestKeys.publisher.publicKey]).verifiedBy
                == TestKeys.publisher.keyID)
    }

    @Test("malformed statements and newer formats are refused without reading the payload first")
    func malformed() throws {
        let keys = [TestKeys.publisher.publicKey]
        for text in ["", "null", "{}", #"{"payload":"%%%","payloadType":"application/vnd.warmcache.statement+json","signatures":[]}"#,
                     #"{"payload":"e30=","payloadType":"text/plain","signatures":[{"keyid":"x","sig":"AA=="}]}"#] {
            #expect(throws: StatementError.self) { try SignedStatement.verify(Data(text.utf8), trustedKeys: keys) }
        }
        #expect(throws: StatementError.self) {
            try SignedStatement.verify(Data(repeating: 0x20, count: BundleStatement.maximumByteCount + 1), trustedKeys: keys)
        }
        func signedPayload(_ json: String) throws -> Data {
            let payload = Data(json.utf8)
            let signature = try TestKeys.publisher.signature(for: BundleStatement.preAuthenticationEncoding(of: payload))
            return try JSONEncoder().encode(BundleStatement.Envelope(
                payload: payload.base64EncodedString(), payloadType: BundleStatement.payloadType,
                signatures: [.init(keyid: TestKeys.publisher.keyID, sig: signature.base64EncodedString())]))
        }
        #expect(throws: StatementError(.newerFormat(2))) {
            try SignedStatement.verify(try signedPayload(#"{"format":2}"#), trustedKeys: keys)
        }
        let fields = #""indexSHA256":"\#(Self.index.sha256)","indexByteCount":1,"signedAt":"2025-01-01T00:00:00Z","expiresAt":"2025-02-01T00:00:00Z""#
        for bad in [#"{"format":1,"version":0,\#(fields)}"#, #"{"format":1,"version":9007199254740992,\#(fields)}"#,
                    #"{"format":1,"version":"1",\#(fields)}"#, #"{"format":1,\#(fields)}"#,
                    #"{"format":1,"version":1,\#(fields.replacingOccurrences(of: "ab", with: "AB"))}"#,
                    #"{"format":1,"version":1,\#(fields.replacingOccurrences(of: "2025-02", with: "2024-02"))}"#] {
            #expect(throws: StatementError.self, "\(bad)") { try SignedStatement.verify(try signedPayload(bad), trustedKeys: keys) }
        }
        // Unknown fields are ignored (a later minor may add some).
        #expect(try SignedStatement.verify(try signedPayload(#"{"format":1,"version":1,"note":"x",\#(fields)}"#),
                                           trustedKeys: keys).statement.version == 1)
    }

    @Test("keys: the id is the SHA-256 of the public key's 32 bytes, and text forms are told apart")
    func keys() throws {
        let key = TestKeys.publisher.publicKey
        #expect(key.keyID == ContentHash.sha256(key.rawRepresentation).prefix(16).description)
        #expect(try BundlePublicKey(base64: "  \(key.base64)\n") == key)
        #expect(key.base64.count == 44)

        let file = FileManager.default.temporaryDirectory.appendingPathComponent("wc-key-\(UUID().uuidString)")
        try TestKeys.publisher.write(toNewFile: file)
        let secret = try String(contentsOf: file, encoding: .utf8)
        #expect(secret.hasPrefix("warm-cache-secret-key-ed25519:") && secret.hasSuffix("\n"))
        let attributes = try FileManager.default.attributesOfItem(atPath: file.path)
        #expect((attributes[.posixPermissions] as? Int) == 0o600)
        #expect(try BundleSigningKey.load(file: file).keyID == TestKeys.publisher.keyID)
        #expect(throws: SigningError.self) { try TestKeys.next.write(toNewFile: file) }
        #expect(try BundleSigningKey.load(file: file).keyID == TestKeys.publisher.keyID, "not overwritten")

        // A secret where a public key belongs, and the other way round: named, never quoted.
        let misplaced = #expect(throws: SigningError.self) { try BundlePublicKey(base64: secret) }
        #expect(misplaced?.description.contains("secret") == true)
        let body = String(secret.dropFirst("warm-cache-secret-key-ed25519:".count).dropLast())
        for error in [misplaced, #expect(throws: SigningError.self) { try BundlePublicKey(base64: secret + "x") },
                      #expect(throws: SigningError.self) { try BundlePublicKey(base64: String(secret.dropFirst(3))) },
                      #expect(throws: SigningError.self) { try BundleSigningKey(text: String(secret.dropLast(5)), origin: "x") }] {
            #expect(error.map { !$0.description.contains(body) && !$0.description.contains(body.prefix(20)) } == true)
        }
        #expect(throws: SigningError.self) { try BundleSigningKey(text: key.base64, origin: "the file k") }
        #expect(try BundleSigningKey.fromEnvironment([:]) == nil)
        #expect(try BundleSigningKey.fromEnvironment(["WARM_CACHE_SIGNING_KEY": secret])?.keyID == TestKeys.publisher.keyID)

        // Printing, logging or dumping a key shows its id, never the secret.
        var dumped = ""
        dump(TestKeys.publisher, to: &dumped)
        for shown in ["\(TestKeys.publisher)", String(reflecting: TestKeys.publisher), dumped] {
            #expect(shown.contains(TestKeys.publisher.keyID) && !shown.contains(body))
        }
    }

    @Test("signing a bundle: versions grow, a current statement is kept, the index must be a bundle's")
    func signer() throws {
        var published = try PublishedBundle(sources: 2, signingKey: nil)
        let signer = BundleSigner(bundleURL: published.directory, key: TestKeys.publisher)
        let first = try signer.sign()
        #expect(first.wrote && first.statement.statement.version == 1)
        let digest = try IndexDigest(contentsOf: published.indexURL)
        #expect(first.statement.statement.index == digest)
        let kept = try signer.sign(keepIfCurrent: true)
        let onDisk = try SignedStatement.readUnverified(Data(contentsOf: published.statementURL))
        #expect(!kept.wrote && kept.statement == onDisk)
        #expect(try signer.sign().statement.statement.version == 2, "without keepIfCurrent a new version")
        #expect(try signer.sign(version: 100).statement.statement.version == 100)
        let lower = #expect(throws: SigningError.self) { try signer.sign(version: 100) }
        #expect(lower?.description.contains("not higher than version 100") == true)
        // Another key, a statement past half its validity or an index changed: signed again.
        #expect(try BundleSigner(bundleURL: published.directory, key: TestKeys.next).sign(keepIfCurrent: true).wrote)
        #expect(try signer.sign(keepIfCurrent: true).statement.statement.version == 102)
        #expect(!(try signer.sign(keepIfCurrent: true, now: Date().addingTimeInterval(14 * 86_400)).wrote))
        #expect(try signer.sign(keepIfCurrent: true, now: Date().addingTimeInterval(16 * 86_400)).wrote)
        try published.change([0])
        let changed = try signer.sign(keepIfCurrent: true)
        #expect(changed.wrote && changed.statement.statement.version == 104)
        let expires = try signer.sign(validity: 7 * 86_400, now: Self.signedAt)
        #expect(expires.statement.statement.expiresAt == Date(timeIntervalSince1970: 1_750_000_000 + 7 * 86_400))
        #expect(throws: SigningError.self) { try signer.sign(validity: 0) }

        let empty = FileManager.default.temporaryDirectory.appendingPathComponent("wc-empty-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: empty, withIntermediateDirectories: true)
        let missing = #expect(throws: SigningError.self) { try BundleSigner(bundleURL: empty, key: TestKeys.publisher).sign() }
        #expect(missing?.description.contains("has no index.sqlite") == true)
        try Data("not sqlite".utf8).write(to: empty.appendingPathComponent("index.sqlite"))
        #expect(throws: SigningError.self) { try BundleSigner(bundleURL: empty, key: TestKeys.publisher).sign() }
        // A damaged previous statement: the next version must be given.
        try Data("{".utf8).write(to: published.statementURL)
        #expect(throws: SigningError.self) { try signer.sign() }
        #expect(try signer.sign(version: 200).wrote)
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: published.directory.path)
        #expect(Set(leftovers) == ["index.sqlite", "objects", "statement.json"], "no temporary file stays")
    }

    /// The test vector in docs/bundle-format.md, made with Python's `cryptography` (another
    /// Ed25519 implementation): the secret key of the 32 bytes 1…32.
    enum Vector {
        static let secret = "warm-cache-secret-key-ed25519:AQIDBAUGBwgJCgsMDQ4PEBESExQVFhcYGRobHB0eHyA="
        static let publicKey = "ebVWLo/mVPlAeLES6KmLp5AfhTrmlb7X4OORC60ElmQ="
        static let keyID = "65b60673d6ed884b"
        static let payload = "eyJleHBpcmVzQXQiOiIyMDI1LTA3LTE1VDE1OjA2OjQwWiIsImZvcm1hdCI6MSwiaW5kZXhCeXRlQ291bnQiOjEyMjg4LCJpbmRleFNIQTI1NiI6ImFiYWJhYmFiYWJhYmFiYWJhYmFiYWJhYmFiYWJhYmFiYWJhYmFiYWJhYmFiYWJhYmFiYWJhYmFiYWJhYmFiYWIiLCJzaWduZWRBdCI6IjIwMjUtMDYtMTVUMTU6MDY6NDBaIiwidmVyc2lvbiI6NDJ9"
        static let signature = "ouojiJg+Y9Hf3BwOE2vU9mXEsb+pnOzU1xg2hdGv1/i7BGgz/0E+qMQrHxHBemyH+LX0WaLuA9xOnI68v9kmCg=="
    }

    @Test("the documented test vector: key id, payload and a signature made by another implementation")
    func testVector() throws {
        let key = try BundleSigningKey(text: Vector.secret, origin: "the vector")
        #expect(key.publicKey.base64 == Vector.publicKey && key.keyID == Vector.keyID)
        let statement = BundleStatement(index: Self.index, version: 42, signedAt: Self.signedAt,
                                        expiresAt: Self.signedAt.addingTimeInterval(30 * 86_400))
        #expect(statement.payloadBytes().base64EncodedString() == Vector.payload)
        let file = #"{"payload":"\#(Vector.payload)","payloadType":"application/vnd.warmcache.statement+json","#
            + #""signatures":[{"keyid":"\#(Vector.keyID)","sig":"\#(Vector.signature)"}]}"#
        let read = try SignedStatement.verify(Data(file.utf8), trustedKeys: [try BundlePublicKey(base64: Vector.publicKey)])
        #expect(read.statement == statement && read.verifiedBy == Vector.keyID)
    }

    @Test("an independent verifier written from the documentation accepts what the signer writes")
    func independentVerifier() async throws {
        guard try await Self.run("/bin/sh", ["-c", "openssl genpkey -algorithm ed25519 >/dev/null 2>&1 && echo yes"])
            .contains("yes") else {
            print("[skipped] no openssl with Ed25519 on PATH")
            return
        }
        var published = try PublishedBundle(sources: 3)
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Conformance/verify_statement.py")
        func verify(_ keys: [BundlePublicKey]) async throws -> [String: Any] {
            let output = try await Self.run("/usr/bin/env",
                                            ["python3", script.path, published.directory.path] + keys.map(\.base64))
            return try #require(try JSONSerialization.jsonObject(with: Data(output.utf8)) as? [String: Any], "\(output)")
        }
        let accepted = try await verify([TestKeys.next.publicKey, TestKeys.publisher.publicKey])
        #expect(accepted["ok"] as? Bool == true && accepted["version"] as? Int == 1, "\(accepted)")
        #expect(accepted["keyid"] as? String == TestKeys.publisher.keyID)
        #expect(try await verify([TestKeys.next.publicKey])["ok"] as? Bool == false)
        try published.change([1])   // signs version 2
        #expect(try await verify([TestKeys.publisher.publicKey])["version"] as? Int == 2)
        var index = try Data(contentsOf: published.indexURL)
        index[index.count - 1] ^= 0xFF
        try index.write(to: published.indexURL)
        #expect(try await verify([TestKeys.publisher.publicKey])["reason"] as? String
                == "index.sqlite is not the index the statement names")
    }

    /// Runs a program and returns its standard output (standard error discarded), waiting off
    /// the cooperative pool so the tests beside it keep running.
    static func run(_ program: String, _ arguments: [String]) async throws -> String {
        try await withCheckedThrowingContinuation { continuation in
            // A thread of its own, not Dispatch's shared pool, which Linux grows slowly.
            Thread { continuation.resume(with: Result { try runBlocking(program, arguments) }) }.start()
        }
    }

    private static func runBlocking(_ program: String, _ arguments: [String]) throws -> String {
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("wc-run-\(UUID().uuidString)")
        _ = FileManager.default.createFile(atPath: output.path, contents: nil)
        defer { try? FileManager.default.removeItem(at: output) }
        let handle = try FileHandle(forWritingTo: output)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: program)
        process.arguments = arguments
        process.standardOutput = handle
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        try handle.close()
        return try String(contentsOf: output, encoding: .utf8)
    }
}
