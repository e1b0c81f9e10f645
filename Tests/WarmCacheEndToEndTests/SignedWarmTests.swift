import Foundation
import Testing
import WarmCacheTestSupport

/// `warm` and `merge` sign what they write with a key from CI's secrets (an environment
/// variable) or a file, and the key appears in no file, report or log.
@Suite struct SignedWarmTests {
    @Test func warmAndMergeSignWithAKeyFromTheEnvironmentAndNeverWriteIt() async throws {
        let images = try SourceImages.distinct(4)
        try await withWorld(routes: SourceImages.routes(images, under: "s")) { scratch, server in
            let urls = (0..<images.count).map { server.url("/s/\($0)") }
            try scratch.write(Manifests.yaml(urls: urls), to: "manifest.yml")
            let keygen = try await CLI.run(["keygen", "images.key"], in: scratch.url)
            #expect(keygen.status == 0, "\(keygen)")
            let publicKey = keygen.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
            let secretText = try String(contentsOf: scratch.path("images.key"), encoding: .utf8)
            let environment = ["WARM_CACHE_SIGNING_KEY": secretText]
            var outputs = [keygen]

            // A warm signs with the key in the environment, verbose logs and a report included.
            let warm = ["warm", "manifest.yml", "-o", "Out/Images.warmcache", "--cache-dir", "cache", "-v",
                        "--in-process", "--report", "report.json"]
            let first = try await CLI.run(warm, in: scratch.url, environment: environment)
            #expect(first.status == 0 && first.stdout.contains("Signed Images.warmcache: version 1, expires "), "\(first)")
            let verify = ["verify", "Out/Images.warmcache", "--public-key", publicKey]
            let verified = try await CLI.run(verify, in: scratch.url)
            #expect(verified.status == 0, "\(verified)")
            let statement = try Data(contentsOf: scratch.path("Out/Images.warmcache/statement.json"))

            // A re-warm that changes nothing keeps the statement (clients keep getting 304).
            let again = try await CLI.run(warm, in: scratch.url, environment: environment)
            #expect(again.status == 0 && again.stdout.contains("Kept the signature of Images.warmcache: version 1"),
                    "\(again)")
            #expect(try Data(contentsOf: scratch.path("Out/Images.warmcache/statement.json")) == statement)

            // Shards are not signed; their merge is, from the key file, with the CI's version.
            var merge = ["merge", "-o", "Merged/Images.warmcache", "--sign-key", "images.key", "--sign-version", "41"]
            for index in 1...2 {
                let part = "parts/Images-\(index).warmcache"
                let shard = try await CLI.run(["warm", "manifest.yml", "--shard", "\(index)/2", "-o", part, "-q",
                                               "--in-process", "--cache-dir", "cache-\(index)"],
                                              in: scratch.url, environment: environment)
                #expect(shard.status == 0, "\(shard)")
                #expect(!FileManager.default.fileExists(atPath: scratch.path(part + "/statement.json").path))
                merge.append(part)
                outputs.append(shard)
            }
            let merged = try await CLI.run(merge, in: scratch.url)
            #expect(merged.status == 0 && merged.stdout.contains("Signed Images.warmcache: version 41"), "\(merged)")
            let mergedVerified = try await CLI.run(["verify", "Merged/Images.warmcache", "--public-key", publicKey],
                                                   in: scratch.url)
            #expect(mergedVerified.status == 0, "\(mergedVerified)")
            let inspected = try await CLI.run(["inspect", "Merged/Images.warmcache"], in: scratch.url)
            #expect(inspected.stdout.contains("signed: version 41, key "), "\(inspected)")
            outputs += [first, verified, again, merged, mergedVerified, inspected]

            // Without a key (a CI run without its secrets) the bundle is written unsigned, with a warning.
            let unsigned = try await CLI.run(["warm", "manifest.yml", "-o", "Unsigned/Images.warmcache", "--cache-dir",
                                              "cache", "--in-process", "--sign-version", "7"], in: scratch.url)
            #expect(unsigned.status == 0 && unsigned.stderr.contains("not signing: no key"), "\(unsigned)")
            #expect(!FileManager.default.fileExists(atPath: scratch.path("Unsigned/Images.warmcache/statement.json").path))

            // A bad key fails before any work, without quoting it.
            let damaged = String(secretText.dropLast(8))
            let refused = try await CLI.run(["warm", "manifest.yml", "-o", "Refused/Images.warmcache", "--cache-dir",
                                             "cache-refused", "--in-process"],
                                            in: scratch.url, environment: ["WARM_CACHE_SIGNING_KEY": damaged])
            #expect(refused.status == 1 && refused.stderr.contains("WARM_CACHE_SIGNING_KEY holds a damaged signing key"),
                    "\(refused)")
            #expect(!FileManager.default.fileExists(atPath: scratch.path("cache-refused").path)
                    && !FileManager.default.fileExists(atPath: scratch.path("Refused").path), "before any work")
            outputs.append(refused)

            // The secret is in no output and in no file but its own.
            let secret = String(secretText.trimmingCharacters(in: .whitespacesAndNewlines).split(separator: ":").last ?? "")
            let raw = try #require(Data(base64Encoded: secret))
            for output in outputs {
                #expect(!output.stdout.contains(secret.prefix(16)) && !output.stderr.contains(secret.prefix(16)),
                        "\(output)")
            }
            let files = FileManager.default.enumerator(at: scratch.url, includingPropertiesForKeys: nil)?
                .compactMap { $0 as? URL } ?? []
            #expect(files.count > 20)
            for file in files where file.lastPathComponent != "images.key" {
                guard let data = try? Data(contentsOf: file) else { continue }
                #expect(data.range(of: Data(secret.prefix(16).utf8)) == nil && data.range(of: raw) == nil,
                        "\(file.path) holds the secret key")
            }
        }
    }
}
