import Foundation
import Testing
import WarmCache
import WarmCacheBuilder
import WarmCacheTestSupport

/// The CLI when things go wrong: one plain line per failure, documented exit codes, quiet
/// when asked, progress in CI, explained misses.
@Suite struct CLIOperationsTests {
    private func json(_ text: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any], "not a JSON object: \(text)")
    }

    /// The `error:` lines of a run's standard error.
    private func errorLines(_ run: CLI.Result) -> [String] {
        run.stderr.split(separator: "\n").map(String.init).filter { $0.hasPrefix("error: ") }
    }

    @Test func fileSystemProblemsAreOneLineAndExitOne() async throws {
        try await withWorld { scratch, server in
            // A manifest that is a folder.
            try FileManager.default.createDirectory(at: scratch.path("folder.yml"), withIntermediateDirectories: true)
            let folder = try await CLI.run(["warm", "folder.yml"], in: scratch.url)
            #expect(folder.status == 1, "\(folder)")
            #expect(errorLines(folder).count == 1 && folder.stderr.contains("is a folder"), "\(folder)")
            #expect(!folder.stderr.contains("NSCocoaErrorDomain"), "\(folder)")

            // No manifest named and none of the conventional ones present.
            let none = try await CLI.run(["plan"], in: scratch.url)
            #expect(none.status == 1, "\(none)")
            #expect(none.stderr.contains("warm-cache.yml, warm-cache.yaml, manifest.yml"), "\(none)")
            #expect(!none.stderr.contains(":1:1:"), "no made-up position: \(none)")

            // manifest.yml is found as the plugin finds it.
            try scratch.write(Manifests.yaml(urls: [server.url("/a.jpg")]), to: "manifest.yml")
            let found = try await CLI.run(["plan"], in: scratch.url)
            #expect(found.status == 0, "\(found)")

            // --report naming a folder fails before anything is written or fetched.
            try FileManager.default.createDirectory(at: scratch.path("reports"), withIntermediateDirectories: true)
            let report = try await CLI.run(["warm", "manifest.yml", "--report", "reports"], in: scratch.url)
            #expect(report.status == 64, "\(report)")
            #expect(report.stderr.contains("is a folder"), "\(report)")
            #expect(!FileManager.default.fileExists(atPath: scratch.path("Out").path), "the bundle was written")
            #expect(server.totalRequestCount == 0)

            // -o must name a .warmcache directory, like the manifest's output.
            let output = try await CLI.run(["warm", "manifest.yml", "-o", "newdir"], in: scratch.url)
            #expect(output.status == 64 && output.stderr.contains(".warmcache"), "\(output)")

            // A misspelt subcommand gets a suggestion rather than being read as a manifest path.
            let typo = try await CLI.run(["inspct", "Out/Images.warmcache"], in: scratch.url)
            #expect(typo.status == 64, "\(typo)")
            #expect(typo.stderr.contains("did you mean 'inspect'?"), "\(typo)")

            // verify --json on an index that is not SQLite still prints JSON (and exits 2).
            let bundle = scratch.path("Broken.warmcache")
            try FileManager.default.createDirectory(at: bundle.appendingPathComponent("objects"),
                                                    withIntermediateDirectories: true)
            try Data("not a database, just text".utf8).write(to: bundle.appendingPathComponent("index.sqlite"))
            let verify = try await CLI.run(["verify", "Broken.warmcache", "--json"], in: scratch.url)
            #expect(verify.status == 2, "\(verify)")
            let object = try json(verify.stdout)
            #expect((object["problems"] as? [Any])?.count == 1, "\(verify)")
            let missing = try await CLI.run(["inspect", "Nowhere.warmcache", "--json"], in: scratch.url)
            #expect(missing.status == 1, "\(missing)")
            #expect(try json(missing.stdout)["error"] is String, "\(missing)")
        }
    }

    @Test func aDeadHostFailsInSecondsOnceAndQuietly() async throws {
        let image = try SourceImages.distinct(1)[0]
        let routes: [String: FixtureRoute] = ["/ok.jpg": .image(image.bytes, contentType: image.contentType)]
        try await withWorld(routes: routes) { scratch, server in
            // A port where nothing listens (and no other test's server can start meanwhile).
            let closed = try ClosedPort()
            let deadPort = closed.port
            let dead = (1...20).map { closed.url("/img/\($0).jpg") }
            // And a port that never answers (as a host behind a firewall dropping packets).
            let silentPort = try SilentPort()
            let silent = (1...20).map { silentPort.url("/img/\($0).jpg") }
            // Default fetch settings: no `fetch` section at all.
            try scratch.write(Manifests.yaml(urls: [server.url("/ok.jpg")] + dead + silent, fetch: ""),
                              to: "manifest.yml")

            let started = Date()
            let run = try await CLI.run(["warm", "manifest.yml", "--cache-dir", "cache", "-q", "--report", "r.json"],
                                        in: scratch.url)
            let seconds = Date().timeIntervalSince(started)
            #expect(run.status == 3, "\(run)")

            // -q: only failures, each once, on one line naming the URL once; nothing on stdout.
            #expect(run.stdout.isEmpty, "\(run)")
            let lines = run.stderr.split(separator: "\n").map(String.init)
            #expect(lines.allSatisfy { $0.hasPrefix("error: ") }, "\(run)")
            for url in dead {
                let mentions = lines.filter { $0.contains(url.absoluteString) }
                #expect(mentions.count == 1, "\(url): \(run)")
                #expect(mentions.first.map { $0.components(separatedBy: url.absoluteString).count == 2 } == true)
                #expect(mentions.first?.contains("connection refused") == true, "\(mentions)")
            }
            for url in silent {
                let mentions = lines.filter { $0.contains(url.absoluteString) }
                #expect(mentions.count == 1, "\(url): \(run)")
                #expect(mentions.first?.contains("no answer within 5 s") == true, "\(mentions)")
            }
            #expect(!run.stderr.contains("errno"), "\(run)")

            let report = try JSONDecoder().decode(WarmReport.self, from: Data(contentsOf: scratch.path("r.json")))
            let deadSources = report.sources.filter {
                $0.location.contains(":\(deadPort)/") || $0.location.contains(":\(silentPort.port)/")
            }
            #expect(deadSources.count == dead.count + silent.count)
            for source in deadSources {
                #expect(source.failure?.kind == .connection, "\(source.identifier): \(String(describing: source.failure))")
                #expect(source.failure?.attempts == 1)
            }
            let slowest = deadSources.map(\.seconds).max() ?? 0
            // One connect timeout (5 s by default) at most, the others at once; slack for a busy machine.
            #expect(slowest < 20, "a dead-host source took \(slowest) s")
            // The whole warm, one encode included, as the warm measured it: the dead hosts cost one
            // connect timeout, not retries x sources. (The test's own wall clock also counts the
            // process starting and this machine's other tests; it is printed, not judged.)
            #expect(report.seconds < 30, "the warm took \(report.seconds) s")
            print("dead hosts: 20 sources on a refused port, 20 on a silent one; slowest failed in "
                + "\(String(format: "%.3f", slowest)) s; the warm \(String(format: "%.2f", report.seconds)) s; "
                + "whole CLI run \(String(format: "%.2f", seconds)) s")
            withExtendedLifetime(silentPort) {}
            withExtendedLifetime(closed) {}
        }
    }

    @Test func ciProgressLinesComeAfterOneSecondThenEveryFiveWhileWorking() async throws {
        let image = try SourceImages.distinct(1)[0]
        // About 11 s of transfer: the body trickles in eleven pieces, one a second.
        let chunk = image.bytes.count / 10 + 1
        let routes: [String: FixtureRoute] = [
            "/slow.jpg": .trickled(chunkSize: chunk, interval: 1,
                                   .image(image.bytes, contentType: image.contentType)),
            "/fast.jpg": .image(image.bytes, contentType: image.contentType),
        ]
        try await withWorld(routes: routes) { scratch, server in
            try scratch.write(Manifests.yaml(urls: [server.url("/slow.jpg")]), to: "slow.yml")
            let slow = try await CLI.run(["warm", "slow.yml", "--cache-dir", "cache"], in: scratch.url)
            #expect(slow.status == 0, "\(slow)")
            let progress = slow.stderr.split(separator: "\n").filter { $0.hasPrefix("progress: ") }
            // Three expected (at 1 s, 6 s and 11 s); the bounds leave room for a slow start or finish.
            #expect((1...4).contains(progress.count), "\(slow)")
            // The first line comes while the only source is still downloading, and the lines move
            // with its bytes, at the rate they arrive.
            let first = try #require(progress.first)
            #expect(first.contains("0/1 sources"), "\(first)")
            #expect(progress.contains { $0.contains("0/1 sources") && $0.contains(" downloaded at ") }, "\(slow)")
            print("CI progress of an 11 s download:\n" + progress.joined(separator: "\n"))

            // A quick run prints no progress line at all (nothing while idle, nothing after).
            try scratch.write(Manifests.yaml(output: "Fast/Images.warmcache", urls: [server.url("/fast.jpg")]),
                              to: "fast.yml")
            let fast = try await CLI.run(["warm", "fast.yml", "--cache-dir", "cache"], in: scratch.url)
            #expect(fast.status == 0, "\(fast)")
            let quick = fast.stderr.split(separator: "\n").filter { $0.hasPrefix("progress: ") }
            #expect(quick.count <= 1, "\(fast)")
        }
    }

    @Test func inspectListsSourcesAndLookupExplainsMisses() async throws {
        let images = try SourceImages.distinct(2)
        let routes: [String: FixtureRoute] = ["/a.jpg": .image(images[0].bytes, contentType: images[0].contentType)]
        try await withWorld(routes: routes) { scratch, server in
            try Data(images[1].bytes).write(to: scratch.path("coffee.jpg"))
            let manifest = Manifests.yaml(urls: [server.url("/a.jpg")])
                + "  - path: coffee.jpg\n    key: asset://coffee\n    presets: [thumb]\n"
            try scratch.write(manifest, to: "warm-cache.yml")
            let warm = try await CLI.run(["warm", "--cache-dir", "cache", "-q"], in: scratch.url)
            #expect(warm.status == 0, "\(warm)")

            let list = try await CLI.run(["inspect", "Out/Images.warmcache", "--list", "--json"], in: scratch.url)
            #expect(list.status == 0, "\(list)")
            let listing = try JSONDecoder().decode(BundleListing.self, from: Data(list.stdout.utf8))
            #expect(listing.sources.map(\.identifier) == ["asset://coffee", server.url("/a.jpg").absoluteString])
            #expect(listing.sources[0].variants.count == 2)
            #expect(listing.sources[1].variants.count == Manifests.variantsPerSource)
            let variant = try #require(listing.sources[0].variants.first)
            #expect(variant.bytes > 0 && variant.pixelWidth == 48 && variant.presets == ["thumb"])
            let text = try await CLI.run(["inspect", "Out/Images.warmcache", "--list"], in: scratch.url)
            #expect(text.stdout.contains("asset://coffee") && text.stdout.contains(variant.cacheKey), "\(text)")

            func lookup(_ arguments: [String]) async throws -> [String: Any] {
                let run = try await CLI.run(["lookup", "Out/Images.warmcache"] + arguments + ["--json"], in: scratch.url)
                #expect(run.status == 2, "\(run)")
                return try json(run.stdout)
            }
            let byPath = try await lookup(["coffee.jpg", "--size", "48x48"])
            #expect(byPath["suggestion"] as? String == "asset://coffee", "\(byPath)")
            #expect((byPath["reason"] as? String)?.contains("no source") == true, "\(byPath)")
            let format = try await lookup(["asset://coffee", "--size", "48x48", "--accept", "avif"])
            #expect((format["reason"] as? String)?.contains("accepted format") == true, "\(format)")
            let filtered = try await lookup(["asset://coffee", "--size", "48x48", "--preset", "card"])
            #expect((filtered["reason"] as? String)?.contains("--preset card") == true, "\(filtered)")
        }
    }
}
