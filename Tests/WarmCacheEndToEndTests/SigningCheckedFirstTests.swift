import Foundation
import Testing
import WarmCacheTestSupport

/// The signing options are checked before any work: a `--sign-version` that is not higher than
/// the bundle's current one stops `warm` and `merge` before they download, render or publish
/// anything, so the folder never holds an index its statement does not sign.
@Suite struct SigningCheckedFirstTests {
    @Test func aSignVersionNotAboveTheBundlesStopsTheWarmBeforeAnyWork() async throws {
        let images = try SourceImages.distinct(3)
        try await withWorld(routes: SourceImages.routes(images, under: "s")) { scratch, server in
            let urls = (0..<images.count).map { server.url("/s/\($0)") }
            try scratch.write(Manifests.yaml(urls: Array(urls.prefix(2))), to: "manifest.yml")
            let keygen = try await CLI.run(["keygen", "images.key"], in: scratch.url)
            try #require(keygen.status == 0, "\(keygen)")
            let publicKey = keygen.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
            let warm = ["warm", "manifest.yml", "--cache-dir", "cache", "-q", "--in-process", "--sign-key", "images.key"]
            let first = try await CLI.run(warm + ["--sign-version", "6"], in: scratch.url)
            try #require(first.status == 0, "\(first)")
            let bundle = scratch.path("Out/Images.warmcache")
            let before = snapshot(of: bundle)

            // A new source and a version that is too low: refused before the source is fetched.
            try scratch.write(Manifests.yaml(urls: urls), to: "manifest.yml")
            server.resetStatistics()
            for version in ["5", "6"] {
                let refused = try await CLI.run(warm + ["--sign-version", version], in: scratch.url)
                #expect(refused.status == 1, "\(refused)")
                #expect(refused.stderr.contains("version \(version) is not higher than version 6")
                         && refused.stderr.contains("nothing was done"), "\(refused)")
                #expect(refused.stderr.split(separator: "\n").count == 1, "\(refused.stderr)")
            }
            #expect(server.totalRequestCount == 0, "the refused runs fetched something")
            #expect(snapshot(of: bundle) == before, "\(differences(before, snapshot(of: bundle)))")
            let verified = try await CLI.run(["verify", "Out/Images.warmcache", "--public-key", publicKey],
                                             in: scratch.url)
            #expect(verified.status == 0, "\(verified)")

            // A higher version goes through.
            let next = try await CLI.run(warm + ["--sign-version", "7"], in: scratch.url)
            #expect(next.status == 0, "\(next)")
            let again = try await CLI.run(["verify", "Out/Images.warmcache", "--public-key", publicKey], in: scratch.url)
            #expect(again.status == 0, "\(again)")
        }
    }

    @Test func aSignVersionNotAboveTheOutputsStopsTheMergeBeforeAnyWork() async throws {
        let images = try SourceImages.distinct(2)
        try await withWorld(routes: SourceImages.routes(images, under: "s")) { scratch, server in
            let urls = (0..<images.count).map { server.url("/s/\($0)") }
            try scratch.write(Manifests.yaml(urls: urls), to: "manifest.yml")
            _ = try await CLI.run(["keygen", "images.key"], in: scratch.url)
            var merge = ["merge", "-o", "Merged/Images.warmcache", "-q", "--sign-key", "images.key"]
            for index in 1...2 {
                let part = "parts/Images-\(index).warmcache"
                let shard = try await CLI.run(["warm", "manifest.yml", "--shard", "\(index)/2", "-o", part, "-q",
                                               "--in-process", "--cache-dir", "cache"], in: scratch.url)
                try #require(shard.status == 0, "\(shard)")
                merge.append(part)
            }
            let first = try await CLI.run(merge + ["--sign-version", "3"], in: scratch.url)
            try #require(first.status == 0, "\(first)")
            let merged = scratch.path("Merged/Images.warmcache")
            let before = snapshot(of: merged)
            let refused = try await CLI.run(merge + ["--sign-version", "2"], in: scratch.url)
            #expect(refused.status == 1 && refused.stderr.contains("version 2 is not higher than version 3"),
                    "\(refused)")
            #expect(snapshot(of: merged) == before)
        }
    }
}
