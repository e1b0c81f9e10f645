import Foundation
import Testing
import WarmCache
import WarmCacheBuilder
import WarmCacheTestSupport

/// The `warm-cache` executable, run as a process: documented exit codes, the `--report`
/// JSON, `lookup --json`, `verify`.
@Suite struct CLITests {
    private func routes() throws -> [String: FixtureRoute] {
        let images = try SourceImages.distinct(2)
        return [
            "/a.jpg": .image(images[0].bytes, contentType: images[0].contentType, etag: "\"a\""),
            "/b.png": .image(images[1].bytes, contentType: images[1].contentType, etag: "\"b\""),
        ]
    }

    private func json(_ text: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any], "not a JSON object: \(text)")
    }

    @Test func successReportLookupAndVerify() async throws {
        try await withWorld(routes: try routes()) { scratch, server in
            let a = server.url("/a.jpg")
            try scratch.write(Manifests.yaml(urls: [a, server.url("/b.png")]), to: "manifest.yml")

            let warm = try await CLI.run(["warm", "manifest.yml", "--cache-dir", "cache", "--report", "out/report.json"],
                                         in: scratch.url)
            #expect(warm.status == 0 && !warm.signalled, "\(warm)")
            #expect(warm.stdout.contains("Created Out/Images.warmcache"), "\(warm)")

            // The report: documented keys, and it decodes as a WarmReport.
            let reportData = try Data(contentsOf: scratch.path("out/report.json"))
            let object = try #require(try JSONSerialization.jsonObject(with: reportData) as? [String: Any])
            #expect(Set(object.keys) == ["reportVersion", "manifest", "output", "status", "seconds", "totals", "sources",
                                         "warnings", "removedSources", "payload"])
            #expect(object["status"] as? String == "ok")
            let sources = try #require(object["sources"] as? [[String: Any]])
            #expect(sources.count == 2)
            let variant = try #require((sources.first?["variants"] as? [[String: Any]])?.first)
            for key in ["cacheKey", "presets", "format", "pixelWidth", "pixelHeight", "bytes", "blob", "action"] {
                #expect(variant[key] != nil, "variant key \(key) missing")
            }
            let report = try JSONDecoder().decode(WarmReport.self, from: reportData)
            #expect(report.totals.sources == 2)
            #expect(report.totals.variants == 2 * Manifests.variantsPerSource)
            #expect(report.output == scratch.path("Out/Images.warmcache").standardizedFileURL.path)

            // Later runs: --offline and --max-age reuse the cached originals without a request.
            server.resetStatistics()
            for flags in [["--offline"], ["--max-age", "1h"]] {
                let again = try await CLI.run(["warm", "manifest.yml", "--cache-dir", "cache", "-q"] + flags,
                                              in: scratch.url)
                #expect(again.status == 0, "\(flags): \(again)")
            }
            #expect(server.totalRequestCount == 0)

            // lookup --json: a hit.
            let hit = try await CLI.run(["lookup", "Out/Images.warmcache", a.absoluteString, "--size", "48x48",
                                         "--accept", "webp", "--json"], in: scratch.url)
            #expect(hit.status == 0, "\(hit)")
            let answer = try json(hit.stdout)
            for key in ["hit", "path", "format", "pixelWidth", "pixelHeight", "bytes", "cacheKey"] {
                #expect(answer[key] != nil, "lookup key \(key) missing: \(hit.stdout)")
            }
            #expect(answer["hit"] as? Bool == true)
            #expect(answer["format"] as? String == "webp")
            #expect(answer["pixelWidth"] as? Int == 48)
            #expect(answer["pixelHeight"] as? Int == 48)
            let path = try #require(answer["path"] as? String)
            let size = try FileManager.default.attributesOfItem(atPath: path)[.size] as? NSNumber
            #expect(size?.intValue == answer["bytes"] as? Int)
            let bundle = try CacheBundle(contentsOf: scratch.path("Out/Images.warmcache"))
            let cacheKey = try #require(answer["cacheKey"] as? String)
            #expect(try bundle.image(forCacheKey: cacheKey)?.fileURL.path == path)

            // lookup --json: a miss is exit 2 with hit false.
            let miss = try await CLI.run(["lookup", "Out/Images.warmcache", server.url("/other.jpg").absoluteString,
                                          "--size", "48x48", "--json"], in: scratch.url)
            #expect(miss.status == 2, "\(miss)")
            #expect(try json(miss.stdout)["hit"] as? Bool == false)

            // verify: 0 on the fresh bundle, 2 once a blob is damaged.
            let verified = try await CLI.run(["verify", "Out/Images.warmcache"], in: scratch.url)
            #expect(verified.status == 0, "\(verified)")
            var bytes = try Data(contentsOf: URL(fileURLWithPath: path))
            bytes[bytes.count / 2] ^= 0x55
            try bytes.write(to: URL(fileURLWithPath: path))
            let damaged = try await CLI.run(["verify", "Out/Images.warmcache"], in: scratch.url)
            #expect(damaged.status == 2, "\(damaged)")
            // Plain words a person reads, never the kind's case name (that is for --json).
            #expect(damaged.stderr.contains("damaged: its content hashes to"), "\(damaged)")
            #expect(!damaged.stderr.contains("hashMismatch"), "\(damaged)")
        }
    }

    @Test func someSourcesFailedIsExit3WithTheFailuresListed() async throws {
        try await withWorld(routes: try routes()) { scratch, server in
            let missing = server.url("/missing.jpg")
            try scratch.write(Manifests.yaml(urls: [server.url("/a.jpg"), missing]), to: "manifest.yml")
            // The default subcommand is `warm`.
            let run = try await CLI.run(["manifest.yml", "--cache-dir", "cache", "--report", "report.json", "-q"],
                                        in: scratch.url)
            #expect(run.status == 3, "\(run)")
            #expect(run.stderr.contains("1 of 2 sources failed"), "\(run)")
            #expect(run.stderr.contains(missing.absoluteString), "\(run)")
            #expect(run.stderr.contains("HTTP 404"), "\(run)")
            let report = try JSONDecoder().decode(WarmReport.self, from: Data(contentsOf: scratch.path("report.json")))
            #expect(report.status == .partial)
            #expect(try CacheBundle(contentsOf: scratch.path("Out/Images.warmcache")).info.sourceCount == 1)
        }
    }

    @Test func nothingWrittenIsExit4ForAllFailedAndForStrict() async throws {
        try await withWorld(routes: try routes()) { scratch, server in
            try scratch.write(Manifests.yaml(urls: [server.url("/x.jpg"), server.url("/y.jpg")]), to: "dead.yml")
            let dead = try await CLI.run(["warm", "dead.yml", "--cache-dir", "cache", "--report", "dead.json"],
                                         in: scratch.url)
            #expect(dead.status == 4, "\(dead)")
            #expect(dead.stderr.contains("nothing was written"), "\(dead)")
            let deadReport = try JSONDecoder().decode(WarmReport.self, from: Data(contentsOf: scratch.path("dead.json")))
            #expect(deadReport.status == .failed)
            #expect(!FileManager.default.fileExists(atPath: scratch.path("Out/Images.warmcache").path))

            try scratch.write(Manifests.yaml(urls: [server.url("/a.jpg"), server.url("/x.jpg")]), to: "mixed.yml")
            let strict = try await CLI.run(["warm", "mixed.yml", "--cache-dir", "cache", "--strict"], in: scratch.url)
            #expect(strict.status == 4, "\(strict)")
            #expect(strict.stderr.contains("--strict"), "\(strict)")
            #expect(!FileManager.default.fileExists(atPath: scratch.path("Out/Images.warmcache").path))
        }
    }

    @Test func invalidManifestIsExit65WithFileLineColumn() async throws {
        try await withWorld { scratch, server in
            let yaml = """
                version: 1
                output: Out/Images.warmcache
                \(Manifests.presets)
                images:
                  - url: \(server.url("/a.jpg"))
                    presets: [thum]

                """
            let manifest = try scratch.write(yaml, to: "manifest.yml")
            for subcommand in ["warm", "plan"] {
                let run = try await CLI.run([subcommand, "manifest.yml"], in: scratch.url)
                #expect(run.status == 65, "\(subcommand): \(run)")
                #expect(run.stderr.contains("\(manifest.path):8:15: error: unknown preset 'thum'"), "\(subcommand): \(run)")
            }
            #expect(server.totalRequestCount == 0)
        }
    }

    /// A warm that rejects its manifest exits within milliseconds, while libvips may still be
    /// starting on another thread; exiting then used to abort the process now and then (about
    /// once in 900 such runs on a loaded machine: libgomp's `goacc_register` assertion). Many
    /// quick failures at once, each must end with its documented status.
    @Test func quickManifestFailuresExitCleanly() async throws {
        try await withWorld { scratch, _ in
            try scratch.write("version: 1\nimages:\n  - url: http://127.0.0.1:9/a.jpg\n    presets: [none]\n",
                              to: "manifest.yml")
            let statuses = try await withThrowingTaskGroup(of: [Int32].self) { group in
                for _ in 0..<4 {
                    group.addTask {
                        var statuses: [Int32] = []
                        for _ in 0..<15 {
                            statuses.append(try await CLI.run(["warm", "manifest.yml"], in: scratch.url).status)
                        }
                        return statuses
                    }
                }
                return try await group.reduce(into: []) { $0 += $1 }
            }
            #expect(statuses.count == 60)
            #expect(statuses.allSatisfy { $0 == 65 }, "\(statuses.filter { $0 != 65 })")
        }
    }

    @Test func lockedOutputIsExit75AndBadUsageIs64() async throws {
        try await withWorld(routes: try routes()) { scratch, server in
            try scratch.write(Manifests.yaml(urls: [server.url("/a.jpg")]), to: "manifest.yml")
            try FileManager.default.createDirectory(at: scratch.path("Out"), withIntermediateDirectories: true)
            let lockURL = OutputLock.lockURL(for: scratch.path("Out/Images.warmcache"))
            try FileManager.default.createDirectory(at: lockURL.deletingLastPathComponent(),
                                                    withIntermediateDirectories: true)
            let descriptor = open(lockURL.path, O_RDWR | O_CREAT, 0o600)
            try #require(descriptor >= 0)
            defer { close(descriptor) }
            try #require(flock(descriptor, LOCK_EX | LOCK_NB) == 0)
            let holder = "pid 4242 on build-agent, started 2026-01-01T00:00:00Z\n"
            _ = holder.withCString { write(descriptor, $0, strlen($0)) }

            let locked = try await CLI.run(["warm", "manifest.yml", "--cache-dir", "cache"], in: scratch.url)
            #expect(locked.status == 75, "\(locked)")
            #expect(locked.stderr.contains("pid 4242 on build-agent"), "\(locked)")
            #expect(server.totalRequestCount == 0)
            // A refused run leaves nothing beside the output.
            #expect(try FileManager.default.contentsOfDirectory(atPath: scratch.path("Out").path) == [])

            let usage = try await CLI.run(["warm", "manifest.yml", "--jobs", "0"], in: scratch.url)
            #expect(usage.status == 64, "\(usage)")
        }
    }
}
