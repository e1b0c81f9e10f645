import Foundation
import Testing
import WarmCache
import WarmCacheBuilder
import WarmCacheTestSupport

/// One manifest warmed as N shards (N = 1, 3, 4) and merged gives exactly the bundle of one
/// unsharded run: the same index bytes and the same objects.
@Suite struct ShardedWarmTests {
    @Test func shardsMergedAreByteIdenticalToOneUnshardedRun() async throws {
        let images = try SourceImages.distinct(14)
        let routes = SourceImages.routes(images, under: "s")
        try await withWorld(routes: routes) { scratch, server in
            // Two URLs of the same image: identical blobs in different shards, stored once.
            var urls = (0..<images.count).map { server.url("/s/\($0)") }
            urls.append(server.url("/s/0?copy=1"))
            let defaults = "defaults:\n  placeholder: [thumbhash, blurhash]"
            let manifest = try scratch.write(Manifests.yaml(urls: urls, defaults: defaults), to: "manifest.yml")
            let plan = try ManifestLoader(environment: [:]).load(contentsOf: manifest)

            let whole = scratch.path("whole/Images.warmcache")
            let unsharded = try await Warm.run(manifest, output: whole, options: Warm.options(cache: scratch.path("c")))
                .published()
            #expect(unsharded.totals.sourcesOK == urls.count)
            let expected = snapshot(of: whole)
            #expect(expected.keys.contains("index.sqlite"))

            for count in [1, 3] {
                var parts: [URL] = []
                for index in 1...count {
                    var part = plan.restricted(to: try Shard(index: index, count: count))
                    part.output = scratch.path("n\(count)/part-\(index).warmcache")
                    _ = try await WarmPipeline(plan: part, options: Warm.options(cache: scratch.path("c\(count)-\(index)")),
                                               logger: Warm.logger).run()
                    parts.append(part.output)
                }
                let merged = scratch.path("n\(count)/Images.warmcache")
                try BundleMerger(parts: parts, output: merged).merge()
                let actual = snapshot(of: merged)
                #expect(actual == expected, "\(count) shards: \(differences(expected, actual))")
            }

            // N = 4 through the command line, as a CI matrix runs it, reports included. Rendered in
            // process like the reference above (imaging processes run libvips' vector paths, which
            // round differently).
            var arguments = ["merge", "-o", "n4/Images.warmcache"]
            var reports: [String] = []
            for index in 1...4 {
                let result = try await CLI.run(["warm", "manifest.yml", "--shard", "\(index)/4", "-q", "--in-process",
                                                "-o", "n4/part-\(index).warmcache", "--cache-dir", "c4-\(index)",
                                                "--report", "n4/report-\(index).json"], in: scratch.url)
                #expect(result.status == 0, "\(result)")
                arguments.append("n4/part-\(index).warmcache")
                reports.append("n4/report-\(index).json")
            }
            let merge = try await CLI.run(arguments + ["--report", "n4/report.json", "--reports"] + reports,
                                          in: scratch.url)
            #expect(merge.status == 0, "\(merge)")
            let actual = snapshot(of: scratch.path("n4/Images.warmcache"))
            #expect(actual == expected, "4 shards: \(differences(expected, actual))")

            let report = try JSONDecoder().decode(WarmReport.self, from: Data(contentsOf: scratch.path("n4/report.json")))
            #expect(report.status == .ok)
            #expect(report.totals.sources == urls.count && report.totals.variants == unsharded.totals.variants)
            #expect(report.sources.map(\.identifier) == unsharded.sources.map(\.identifier))

            // A part from another manifest is refused, naming both parts; the merged bundle stays.
            _ = try scratch.write(Manifests.yaml(urls: Array(urls.prefix(3)), presets: ["thumb"]), to: "other.yml")
            let foreign = try await CLI.run(["warm", "other.yml", "--shard", "1/4", "-q", "-o", "foreign.warmcache",
                                             "--cache-dir", "c-other"], in: scratch.url)
            #expect(foreign.status == 0, "\(foreign)")
            let refused = try await CLI.run(["merge", "-o", "n4/Images.warmcache", "n4/part-2.warmcache",
                                             "foreign.warmcache", "--allow-missing-shards"], in: scratch.url)
            #expect(refused.status == 1)
            #expect(refused.stderr.contains("different manifests") && refused.stderr.contains("foreign.warmcache")
                    && refused.stderr.contains("part-2.warmcache"), "\(refused)")
            #expect(snapshot(of: scratch.path("n4/Images.warmcache")) == expected)
        }
    }

    /// `plan --shard I/N` shows exactly the sources the assignment gives shard I, and
    /// `plan --shards N` counts what each shard would warm (no network, nothing written).
    @Test func planShowsWhatTheShardAssignmentGivesEachShard() async throws {
        let scratch = try Scratch(#function)
        defer { scratch.remove() }
        let urls = (0..<300).map { URL(string: "https://cdn.example.com/products/\($0).jpg")! }
        try scratch.write(Manifests.yaml(urls: urls), to: "manifest.yml")
        let count = 3
        let assigned = Dictionary(grouping: urls.map { SourceIdentifier($0.absoluteString).rawValue }) {
            Shard.index(of: SourceIdentifier(verbatim: $0), count: count)
        }

        for index in 1...count {
            let json = try await CLI.run(["plan", "manifest.yml", "--shard", "\(index)/\(count)", "--json"],
                                         in: scratch.url)
            #expect(json.status == 0, "\(json)")
            let plan = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
            #expect(plan["shard"] as? String == "\(index)/\(count)")
            let sources = try #require(plan["sources"] as? [[String: Any]])
            #expect(Set(sources.compactMap { $0["identifier"] as? String }) == Set(assigned[index] ?? []))
            #expect(sources.allSatisfy { ($0["variants"] as? [Any])?.count == Manifests.variantsPerSource })

            let text = try await CLI.run(["plan", "manifest.yml", "--shard", "\(index)/\(count)"], in: scratch.url)
            #expect(text.stdout.contains("shard \(index)/\(count): \(assigned[index]?.count ?? 0) of the "
                                         + "manifest's \(urls.count) sources"), "\(text)")
        }

        let json = try await CLI.run(["plan", "manifest.yml", "--shards", "\(count)", "--json"], in: scratch.url)
        #expect(json.status == 0, "\(json)")
        let counts = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        let rows = try #require(counts["shards"] as? [[String: Any]])
        #expect(rows.map { $0["shard"] as? String } == (1...count).map { "\($0)/\(count)" })
        for (offset, row) in rows.enumerated() {
            let sources = assigned[offset + 1]?.count ?? 0
            #expect((row["sources"] as? NSNumber)?.intValue == sources)
            #expect((row["variants"] as? NSNumber)?.intValue == sources * Manifests.variantsPerSource)
        }
        let text = try await CLI.run(["plan", "manifest.yml", "--shards", "\(count)"], in: scratch.url)
        for index in 1...count {
            let sources = assigned[index]?.count ?? 0
            #expect(text.stdout.contains("shard \(index)/\(count): \(sources) sources, "
                                         + "\(sources * Manifests.variantsPerSource) variants"), "\(text)")
        }
        #expect(!FileManager.default.fileExists(atPath: scratch.path("Out").path))
    }
}
