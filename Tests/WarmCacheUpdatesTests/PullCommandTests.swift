import Foundation
import Testing
import WarmCache
import WarmCacheBuilder
import WarmCacheTestSupport
@testable import WarmCacheUpdates

/// `warm-cache pull`, run as the built executable against a loopback server.
@Suite("warm-cache pull")
struct PullCommandTests {
    func pull(_ arguments: [String]) async throws -> WarmCacheCLI.Output {
        try await WarmCacheCLI.run(["pull"] + arguments)
    }

    @Test("pulls a signed bundle, reports what it downloaded, is up to date the second time, and exits 5 on a bad source")
    func pullCommand() async throws {
        var published = try PublishedBundle(sources: 5)
        let server = try await FixtureServer.start()
        try published.serve(on: server)
        let base = server.url("/pub/Images.warmcache/").absoluteString
        let local = temporaryUpdateDirectory().path
        let key = ["--public-key", TestKeys.publisher.publicKey.base64]

        let first = try await pull([base, local] + key)
        #expect(first.status == 0, "\(first)")
        #expect(first.output.contains("updated") && first.output.contains("10 blobs") && first.output.contains("version 1"))
        let second = try await pull([base, local] + key)
        #expect(second.status == 0 && second.output.contains("up to date"), "\(second)")

        try published.change([2])
        try published.serve(on: server)
        let broken = try #require(published.variants(of: 2).first)
        server.setRoute(published.blobPath(of: broken), .status(404))
        let failed = try await pull([base, local] + key)
        #expect(failed.status == 5, "\(failed)")
        #expect(failed.output.contains("HTTP 404") && failed.output.contains("unchanged"))
        #expect(try CacheBundle(contentsOf: URL(fileURLWithPath: local)).contains(PublishedBundle.source(2)))
        try await server.shutdown()
    }

    @Test("a refused update exits 6 naming the check; any one of several keys may sign")
    func refused() async throws {
        let published = try PublishedBundle(sources: 3, signingKey: TestKeys.attacker)
        let server = try await FixtureServer.start()
        try published.serve(on: server)
        let base = server.url("/pub/Images.warmcache/").absoluteString
        let local = temporaryUpdateDirectory()

        let refused = try await pull([base, local.path, "--public-key", TestKeys.publisher.publicKey.base64])
        #expect(refused.status == 6, "\(refused)")
        #expect(refused.stderr.hasPrefix("error: signature check: ") && refused.stderr.contains(TestKeys.attacker.keyID))
        #expect(refused.stderr.split(separator: "\n").count == 1, "one line")
        #expect(!FileManager.default.fileExists(atPath: local.appendingPathComponent("index.sqlite").path))

        let accepted = try await pull([base, local.path, "--public-key", TestKeys.publisher.publicKey.base64,
                                       "--public-key", TestKeys.attacker.publicKey.base64, "--json"])
        #expect(accepted.status == 0, "\(accepted)")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(accepted.stdout.utf8)) as? [String: Any])
        #expect(json["outcome"] as? String == "updated" && json["version"] as? Int == 1)
        #expect(json["keyID"] as? String == TestKeys.attacker.keyID)
        #expect((json["expiresAt"] as? String)?.hasSuffix("Z") == true)
        try await server.shutdown()
    }

    @Test("pull needs a public key or an explicit --insecure-unsigned; a secret key given as public is refused unquoted")
    func keysRequired() async throws {
        let published = try PublishedBundle(sources: 2, signingKey: nil)
        let server = try await FixtureServer.start()
        try published.serve(on: server)
        let base = server.url("/pub/Images.warmcache/").absoluteString
        let local = temporaryUpdateDirectory().path

        let noKey = try await pull([base, local])
        #expect(noKey.status == 64 && noKey.stderr.contains("--public-key") && noKey.stderr.contains("--insecure-unsigned"))

        let signed = try await pull([base, local, "--public-key", TestKeys.publisher.publicKey.base64])
        #expect(signed.status == 6 && signed.stderr.contains("unsigned"), "\(signed)")

        let insecure = try await pull([base, local, "--insecure-unsigned"])
        #expect(insecure.status == 0 && insecure.stdout.contains("to an unsigned version"), "\(insecure)")

        let keyFile = FileManager.default.temporaryDirectory.appendingPathComponent("wc-key-\(UUID().uuidString)")
        try TestKeys.publisher.write(toNewFile: keyFile)
        let secret = try String(contentsOf: keyFile, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
        let misused = try await pull([base, local, "--public-key", secret])
        #expect(misused.status == 64 && misused.stderr.contains("secret signing key"), "\(misused)")
        #expect(!misused.output.contains(secret) && !misused.output.contains(secret.suffix(44)))
        try await server.shutdown()
    }
    @Test("pull says what happened: nothing at a mistyped URL, why a key excludes unsigned, the version a folder has")
    func saysWhatHappened() async throws {
        let server = try await FixtureServer.start()
        let key = ["--public-key", TestKeys.publisher.publicKey.base64]
        // A mistyped base URL: nothing there, not an unsigned bundle; the source failed (5).
        let mistyped = try await pull([server.url("/pub/Images.warmcach/").absoluteString,
                                       temporaryUpdateDirectory().path] + key)
        #expect(mistyped.status == 5 && mistyped.stderr.contains("not found at ") && !mistyped.stderr.contains("unsigned"),
                "\(mistyped)")

        // An unsigned bundle with a key and --insecure-unsigned: refused, saying why the opt-in does not apply.
        let unsigned = try PublishedBundle(sources: 2, signingKey: nil)
        try unsigned.serve(on: server, at: "/unsigned/")
        let both = try await pull([server.url("/unsigned/").absoluteString, temporaryUpdateDirectory().path,
                                   "--insecure-unsigned"] + key)
        #expect(both.status == 6 && both.stderr.contains("signature check: ")
                    && both.stderr.contains("allowed only when no public key is trusted"), "\(both)")

        // A folder signed at version 7, pulled again with --insecure-unsigned, is still at version 7.
        var signed = try PublishedBundle(sources: 2, signingKey: nil)
        try signed.sign(version: 7)
        try signed.serve(on: server)
        let base = server.url("/pub/Images.warmcache/").absoluteString
        let local = temporaryUpdateDirectory().path
        let installed = try await pull([base, local] + key)
        try #require(installed.status == 0 && installed.stdout.contains("version 7"), "\(installed)")
        let insecure = try await pull([base, local, "--insecure-unsigned"])
        #expect(insecure.status == 0 && insecure.stdout.contains("up to date") && insecure.stdout.contains("version 7")
                    && !insecure.stdout.contains("unsigned version"), "\(insecure)")

        // After an unsigned install, a signed statement below the highest version installed is a rollback.
        try signed.change([0])
        try FileManager.default.removeItem(at: signed.statementURL)
        try signed.serve(on: server)
        let unsignedRelease = try await pull([base, local, "--insecure-unsigned"])
        try #require(unsignedRelease.status == 0 && unsignedRelease.stdout.contains("unsigned version"), "\(unsignedRelease)")
        try signed.change([1])
        try signed.sign(version: 1)
        try signed.serve(on: server)
        let rollback = try await pull([base, local] + key)
        #expect(rollback.status == 6 && rollback.stderr.contains("rollback check: ")
                    && rollback.stderr.contains("version 1, older than version 7"), "\(rollback)")
        try await server.shutdown()
    }

    @Test("pull and verify take -q: errors only")
    func quiet() async throws {
        let published = try PublishedBundle(sources: 2)
        let server = try await FixtureServer.start()
        try published.serve(on: server)
        let base = server.url("/pub/Images.warmcache/").absoluteString
        let local = temporaryUpdateDirectory().path
        let key = ["--public-key", TestKeys.publisher.publicKey.base64]
        let pulled = try await pull([base, local, "-q"] + key)
        #expect(pulled.status == 0 && pulled.output.isEmpty, "\(pulled)")
        let verified = try await WarmCacheCLI.run(["verify", local, "-q"] + key)
        #expect(verified.status == 0 && verified.output.isEmpty, "\(verified)")
        let failed = try await pull([server.url("/none/").absoluteString, temporaryUpdateDirectory().path, "--quiet"] + key)
        #expect(failed.status == 5 && failed.stdout.isEmpty && failed.stderr.hasPrefix("error: "), "\(failed)")
        try await server.shutdown()
    }

    @Test("pull's failures in its own words: no curl message, --allow-http, no empty folder left")
    func failuresInPlainWords() async throws {
        let key = ["--public-key", TestKeys.publisher.publicKey.base64]
        let parent = temporaryUpdateDirectory().appendingPathComponent("x")
        let local = parent.appendingPathComponent("Images.warmcache").path
        let closed = try ClosedPort()
        let refused = try await pull([closed.url("/b/").absoluteString, local] + key)
        #expect(refused.status == 5 && refused.stderr.contains("refused the connection")
                    && !refused.stderr.contains("Failed to connect") && !refused.stderr.contains(" ms"), "\(refused)")
        #expect(!FileManager.default.fileExists(atPath: parent.path), "a failed first pull left \(parent.path)")
        for base in ["ftp://cdn.example.com/b/", "http://cdn.example.com/b/"] {
            let insecure = try await pull([base, local] + key)
            #expect(insecure.status == 64 && insecure.stderr.contains("--allow-http")
                        && !insecure.stderr.contains("allowsInsecureHTTP"), "\(insecure)")
        }
        #expect(!FileManager.default.fileExists(atPath: parent.path))
    }
}
