import Foundation
import Testing
import WarmCache
import WarmCacheBuilder
@testable import WarmCacheUpdates

/// `warm-cache keygen`, `sign`, `verify --public-key` and `inspect`, run as the built executable.
@Suite("warm-cache keygen, sign, verify and inspect")
struct SigningCommandTests {
    func folder() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("wc-signing-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    /// The base64 part of a key file's secret.
    func secret(of keyFile: URL) throws -> String {
        let text = try String(contentsOf: keyFile, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
        return String(text.dropFirst(BundleSigningKey.textPrefix.count))
    }

    /// No output and no file below `folders` (key files aside) holds the secret or its bytes.
    func expectSecretKept(_ secret: String, outputs: [WarmCacheCLI.Output], folders: [URL],
                          sourceLocation: SourceLocation = #_sourceLocation) throws {
        let raw = try #require(Data(base64Encoded: secret))
        for output in outputs {
            #expect(!output.output.contains(secret) && !output.output.contains(secret.prefix(16)),
                    "the secret key was printed: \(output)", sourceLocation: sourceLocation)
        }
        for folder in folders {
            let files = FileManager.default.enumerator(at: folder, includingPropertiesForKeys: nil)?
                .compactMap { $0 as? URL } ?? []
            for file in files where file.pathExtension != "key" {
                guard let data = try? Data(contentsOf: file) else { continue }
                #expect(data.range(of: Data(secret.utf8)) == nil && data.range(of: raw) == nil,
                        "\(file.path) holds the secret key", sourceLocation: sourceLocation)
            }
        }
    }

    @Test("keygen prints only the public key on standard output, writes a 0600 file and never overwrites one")
    func keygen() async throws {
        let folder = try folder()
        let keyFile = folder.appendingPathComponent("images.key")
        let made = try await WarmCacheCLI.run(["keygen", keyFile.path])
        #expect(made.status == 0, "\(made)")
        let lines = made.stdout.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines.count == 2 && lines[1].isEmpty, "one line: \(made.stdout)")
        let publicKey = try BundlePublicKey(base64: String(lines[0]))
        #expect(try BundleSigningKey.load(file: keyFile).publicKey == publicKey)
        #expect(made.stderr.contains("key id \(publicKey.keyID)") && made.stderr.contains("WARM_CACHE_SIGNING_KEY"))
        let permissions = try FileManager.default.attributesOfItem(atPath: keyFile.path)[.posixPermissions] as? Int
        #expect(permissions == 0o600)

        let before = try Data(contentsOf: keyFile)
        let again = try await WarmCacheCLI.run(["keygen", keyFile.path])
        #expect(again.status == 1 && again.stdout.isEmpty && again.stderr.contains("already exists"), "\(again)")
        #expect(try Data(contentsOf: keyFile) == before)
        try expectSecretKept(try secret(of: keyFile), outputs: [made, again], folders: [folder])
    }

    @Test("sign takes the key from a file or the environment; versions only grow; bad keys fail unquoted")
    func sign() async throws {
        let published = try PublishedBundle(sources: 3, signingKey: nil)
        let bundle = published.directory.path
        let folder = try folder()
        let keyFile = folder.appendingPathComponent("images.key")
        try TestKeys.publisher.write(toNewFile: keyFile)
        let secretText = try String(contentsOf: keyFile, encoding: .utf8)

        let first = try await WarmCacheCLI.run(["sign", bundle, "--key", keyFile.path])
        #expect(first.status == 0, "\(first)")
        #expect(first.stdout.hasPrefix("Signed Images.warmcache: version 1, expires ")
                && first.stdout.contains("key \(TestKeys.publisher.keyID)"), "\(first)")
        let lower = try await WarmCacheCLI.run(["sign", bundle, "--key", keyFile.path, "--sign-version", "1"])
        #expect(lower.status == 1 && lower.stderr.contains("not higher than version 1"), "\(lower)")

        let fromEnvironment = try await WarmCacheCLI.run(["sign", bundle, "--sign-version", "10", "--expires", "2h"],
                                                         environment: ["WARM_CACHE_SIGNING_KEY": secretText])
        #expect(fromEnvironment.status == 0, "\(fromEnvironment)")
        let statement = try SignedStatement.verify(Data(contentsOf: published.statementURL),
                                                   trustedKeys: [TestKeys.publisher.publicKey]).statement
        #expect(statement.version == 10 && abs(statement.expiresAt.timeIntervalSinceNow - 7_200) < 120)

        let noKey = try await WarmCacheCLI.run(["sign", bundle])
        #expect(noKey.status == 64 && noKey.stderr.contains("--key FILE") && !noKey.stderr.contains("USAGE")
                    && noKey.stderr.split(separator: "\n").count == 1, "one line, no usage: \(noKey)")
        // --version is warm-cache's own (`warm-cache --version`); the statement's is --sign-version,
        // which sign's old spelling names rather than printing the tool's version.
        let version = try await WarmCacheCLI.run(["sign", bundle, "--version", "11"])
        #expect(version.status == 64 && version.stderr.contains("--sign-version 11"), "\(version)")
        let help = try await WarmCacheCLI.run(["sign", "--help"])
        #expect(!help.stdout.contains("--version") && help.stdout.contains("--sign-version"),
                "--version not listed: \(help)")
        let publicFile = folder.appendingPathComponent("public.txt")
        try Data((TestKeys.publisher.publicKey.base64 + "\n").utf8).write(to: publicFile)
        let wrongFile = try await WarmCacheCLI.run(["sign", bundle, "--key", publicFile.path])
        #expect(wrongFile.status == 1 && wrongFile.stderr.contains("holds a public key"), "\(wrongFile)")
        let damaged = try await WarmCacheCLI.run(["sign", bundle], environment: [
            "WARM_CACHE_SIGNING_KEY": String(secretText.dropLast(6))])
        #expect(damaged.status == 1 && damaged.stderr.hasPrefix("error: the environment variable WARM_CACHE_SIGNING_KEY "
            + "holds a damaged signing key"), "\(damaged)")
        let missing = try await WarmCacheCLI.run(["sign", bundle, "--key", folder.appendingPathComponent("none.key").path])
        #expect(missing.status == 1 && missing.stderr.contains("no such file") && missing.stderr.contains("keygen"),
                "\(missing)")
        for output in [wrongFile, damaged, missing] {
            #expect(output.stderr.split(separator: "\n").count == 1, "one line: \(output)")
        }
        let badDuration = try await WarmCacheCLI.run(["sign", bundle, "--key", keyFile.path, "--expires", "soon"])
        #expect(badDuration.status == 64 && badDuration.stderr.contains("--expires 'soon'"), "\(badDuration)")
        try expectSecretKept(try secret(of: keyFile),
                             outputs: [first, lower, fromEnvironment, noKey, wrongFile, damaged, missing, badDuration],
                             folders: [published.directory.deletingLastPathComponent(), folder])
    }

    @Test("verify --public-key checks the statement offline; inspect shows who signed, the version and the expiry")
    func verifyAndInspect() async throws {
        var published = try PublishedBundle(sources: 3)
        let bundle = published.directory.path
        let key = ["--public-key", TestKeys.publisher.publicKey.base64]

        let good = try await WarmCacheCLI.run(["verify", bundle] + key)
        #expect(good.status == 0 && good.stdout.hasPrefix("OK:"), "\(good)")
        #expect(good.stdout.contains("\n  signed: version 1, key \(TestKeys.publisher.keyID), expires "), "\(good)")
        let goodJSON = try await WarmCacheCLI.run(["verify", bundle, "--json"] + key)
        let verified = try #require(try JSONSerialization.jsonObject(with: Data(goodJSON.stdout.utf8)) as? [String: Any])
        #expect(verified["version"] as? Int == 1 && verified["keyID"] as? String == TestKeys.publisher.keyID
                    && verified["expiresAt"] is String, "\(goodJSON)")
        let unchecked = try await WarmCacheCLI.run(["verify", bundle])
        #expect(unchecked.status == 0 && unchecked.stderr.contains("not checked"), "\(unchecked)")
        let otherKey = try await WarmCacheCLI.run(["verify", bundle, "--public-key", TestKeys.next.publicKey.base64])
        #expect(otherKey.status == 2 && otherKey.stderr.contains("error: statement.json: signed by key "
            + TestKeys.publisher.keyID), "\(otherKey)")

        let inspected = try await WarmCacheCLI.run(["inspect", bundle])
        #expect(inspected.stdout.contains("  signed: version 1, key \(TestKeys.publisher.keyID), signed "), "\(inspected)")
        let json = try await WarmCacheCLI.run(["inspect", bundle, "--json"])
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        let statement = try #require(object["statement"] as? [String: Any], "\(json)")
        #expect(statement["version"] as? Int == 1 && statement["namesIndex"] as? Bool == true)
        #expect(statement["keyIDs"] as? [String] == [TestKeys.publisher.keyID] && statement["expired"] as? Bool == false)
        #expect(object["sources"] as? Int == 3, "the report's own keys stay")

        // A new index without a new signature: a problem for verify, a warning for whoever wrote it.
        published.signingKey = nil
        try published.change([0])
        let stale = try await WarmCacheCLI.run(["verify", bundle] + key + ["--json"])
        #expect(stale.status == 2 && stale.stdout.contains("names another index"), "\(stale)")
        #expect(stale.stdout.contains("\"kind\" : \"statement\""), "\(stale)")
        #expect(try await WarmCacheCLI.run(["inspect", bundle]).stdout.contains("(names another index: sign again)"))

        // Expired.
        try published.sign(validity: 60, now: Date().addingTimeInterval(-3_600))
        let expired = try await WarmCacheCLI.run(["verify", bundle] + key)
        #expect(expired.status == 2 && expired.stderr.contains("expired at"), "\(expired)")
        #expect(try await WarmCacheCLI.run(["inspect", bundle]).stdout.contains("(EXPIRED: sign again)"))

        // Unsigned.
        try FileManager.default.removeItem(at: published.statementURL)
        let unsigned = try await WarmCacheCLI.run(["verify", bundle] + key)
        #expect(unsigned.status == 2 && unsigned.stderr.contains("missing: the bundle is not signed"), "\(unsigned)")
        #expect(try await WarmCacheCLI.run(["verify", bundle]).status == 0)
        #expect(try await WarmCacheCLI.run(["inspect", bundle]).stdout.contains("  unsigned (no statement.json"))
    }

    @Test("a damaged index is said in plain words, with what to do, and not as a reason to sign again")
    func damagedIndex() async throws {
        let published = try PublishedBundle(sources: 3)
        let bundle = published.directory.path
        var bytes = try Data(contentsOf: published.indexURL)
        for offset in stride(from: 200, to: bytes.count, by: 7) { bytes[offset] = 0xA5 }
        try bytes.write(to: published.indexURL)
        let key = ["--public-key", TestKeys.publisher.publicKey.base64]
        let verified = try await WarmCacheCLI.run(["verify", bundle] + key)
        #expect(verified.status == 2 && verified.stderr.contains("index.sqlite is damaged")
                    && verified.stderr.contains("warm-cache warm"), "\(verified)")
        #expect(!verified.output.contains("SQLite") && !verified.output.contains("SELECT")
                    && !verified.output.contains("Sign the bundle again"), "\(verified)")
        let inspected = try await WarmCacheCLI.run(["inspect", bundle])
        #expect(inspected.status == 1 && inspected.stderr.contains("index.sqlite is damaged")
                    && !inspected.stderr.contains("SQLite"), "\(inspected)")
    }
}
