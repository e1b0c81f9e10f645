import Foundation
import Testing
import WarmCache
import WarmCacheBuilder
import WarmCacheTestSupport

/// A small deterministic generator (SplitMix64), so the kill schedule is the same every time.
struct SeededGenerator: RandomNumberGenerator {
    private var state: UInt64

    init(seed: UInt64) {
        state = seed
    }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// `kill -9` at any moment of a run never damages the published bundle: after each kill
/// the bundle verifies and opens, and a normal run afterwards completes and cleans up.
@Suite struct KillNineTests {
    static let sources = 20
    static let iterations = 20

    @Test func killingTheCLIAtRandomMomentsNeverBreaksTheBundle() async throws {
        let images = try SourceImages.distinct(Self.sources)
        let routes = SourceImages.routes(images, under: "k")
        try await withWorld(routes: routes) { scratch, server in
            let urls = (0..<Self.sources).map { server.url("/k/\($0)") }
            let bundleURL = scratch.path("Out/Images.warmcache")
            // Each iteration asks for another JPEG quality, so every run re-encodes and rewrites.
            func writeManifest(quality: Int) throws {
                let defaults = "defaults:\n  quality: { jpeg: \(quality), webp: \(quality) }"
                try scratch.write(Manifests.yaml(urls: urls, defaults: defaults), to: "manifest.yml")
            }
            func checkBundle(_ context: String) throws {
                // What a killed run left (its staging folder, unlisted blobs) is a problem verify
                // names, for the next warm to remove; nothing else may be wrong.
                let verification = try BundleVerifier(bundleURL: bundleURL).verify()
                let wrong = verification.problems.filter { $0.kind != .leftover && $0.kind != .orphanBlob }
                #expect(wrong.isEmpty, "\(context): \(wrong)")
                let bundle = try CacheBundle(contentsOf: bundleURL)
                #expect(bundle.info.sourceCount == Self.sources, "\(context)")
                #expect(bundle.info.variantCount == Self.sources * Manifests.variantsPerSource, "\(context)")
                for url in urls {
                    let images = try bundle.images(for: SourceIdentifier(url.absoluteString))
                    #expect(images.count == Manifests.variantsPerSource, "\(context): \(url)")
                    for image in images {
                        #expect(BundleChecks.sniff(try image.data()) == image.format, "\(context): \(image.cacheKey)")
                    }
                }
            }
            let arguments = ["warm", "manifest.yml", "--cache-dir", "cache", "-q"]

            // A first run killed once it has stored a blob: no bundle is published (or, if it
            // finished first, a complete one), and the debris does not stop the next run.
            try writeManifest(quality: 50)
            let early = try CLI.start(arguments, in: scratch.url)
            let objects = bundleURL.appendingPathComponent("objects")
            _ = await eventually {
                !early.process.isRunning
                    || !((try? FileManager.default.contentsOfDirectory(atPath: objects.path)) ?? []).isEmpty
            }
            early.kill(SIGKILL)
            let earlyResult = try await early.wait()
            if !earlyResult.signalled {
                #expect(earlyResult.status == 0, "\(earlyResult)")
            }
            // Killed before the index was renamed into place: no bundle. Killed after it (the run
            // had published and was on its way out), or not killed at all: a complete bundle.
            if FileManager.default.fileExists(atPath: bundleURL.appendingPathComponent("index.sqlite").path) {
                try checkBundle("after a first run killed once it had published")
            } else {
                #expect(throws: CacheBundleError.self) { try CacheBundle(contentsOf: bundleURL) }
            }

            // A complete run: the bundle every later kill must leave intact. Its duration sets
            // the range of the kill delays, so kills land during the runs on any machine.
            let started = Date()
            let first = try await CLI.run(arguments, in: scratch.url)
            try #require(first.status == 0, "\(first)")
            let fullRun = max(0.2, Date().timeIntervalSince(started))
            try checkBundle("after the first run")

            var generator = SeededGenerator(seed: 0x5741_524D_4341_4348)
            var killed = 0
            // Kill delays are drawn below this window; a run that ends before its kill shows runs are
            // now shorter than the window (the first run may have been slowed by tests beside it), so
            // the window shrinks to that delay and later kills land inside the runs.
            var window = fullRun * 1.2
            for iteration in 0..<Self.iterations {
                if iteration % 4 == 3 {
                    // Now and then from a cold cache, so kills also hit downloads.
                    try? FileManager.default.removeItem(at: scratch.path("cache"))
                }
                try writeManifest(quality: 51 + iteration)
                let delay = Double.random(in: 0..<window, using: &generator)
                let child = try CLI.start(arguments, in: scratch.url)
                try await Task.sleep(nanoseconds: UInt64(delay * 1e9))
                child.kill(SIGKILL)
                let result = try await child.wait()
                if result.signalled {
                    #expect(result.status == SIGKILL, "iteration \(iteration): \(result)")
                    killed += 1
                } else {
                    // Finished before the kill: it must have succeeded (never 75: no stale lock).
                    #expect(result.status == 0, "iteration \(iteration): \(result)")
                    window = max(0.05, min(window, delay))
                }
                try checkBundle("iteration \(iteration), killed after \(String(format: "%.3f", delay)) s")
            }
            #expect(killed > 0, "no run was ever killed: the kill loop tested nothing")

            // A normal run completes, and leaves no debris of the killed ones.
            try writeManifest(quality: 90)
            let last = try await CLI.run(arguments, in: scratch.url)
            #expect(last.status == 0, "\(last)")
            try checkBundle("after the final run")
            let verification = try BundleVerifier(bundleURL: bundleURL).verify()
            #expect(verification.isValid && verification.warnings.isEmpty,
                    "left: \(verification.problems) \(verification.warnings)")
            let leftovers = try FileManager.default.contentsOfDirectory(atPath: bundleURL.path)
                .filter { $0 != "index.sqlite" && $0 != "objects" }
            #expect(leftovers.isEmpty, "\(leftovers)")
        }
    }

    /// A run of a changed manifest killed with `kill -9` once it stored its new blobs leaves them
    /// and its staging folder in the bundle folder: `verify` names each as a problem and exits 2
    /// (an app build copying the folder would ship them). The unchanged manifest warmed again
    /// encodes nothing (its renders are remembered beside the killed run's) and removes them.
    @Test func afterAKilledRunVerifyFailsAndTheUnchangedManifestEncodesNothingAndCleansUp() async throws {
        typealias Rewarm = RewarmAfterOtherRunsTests
        let count = Rewarm.count, perSource = Rewarm.variantsPerSource
        let images = try SourceImages.distinct(count + 1)
        let gate = FixtureGate()
        var routes = SourceImages.routes(images, under: "n")
        // The changed manifest's last source answers once the gate opens: the run is mid-way.
        routes["/n/\(count)"] = .held(gate, routes["/n/\(count)"]!)
        try await withWorld(routes: routes) { scratch, server in
            let urls = (0...count).map { server.url("/n/\($0)") }
            try scratch.write(Rewarm.app(Array(urls.prefix(count))), to: "app.yml")
            try await Rewarm.warmApp(in: scratch, encoded: count * perSource, "the first warm")
            let bundle = scratch.path("Out/App.warmcache")
            let objects = bundle.appendingPathComponent("objects")
            let published = Rewarm.blobCount(objects)

            try scratch.write(Rewarm.app(urls, quality: 55), to: "changed.yml")
            let running = try CLI.start(["warm", "changed.yml", "-q"], in: scratch.url)
            let midway = await eventually(within: 120) { Rewarm.blobCount(objects) >= published + count * perSource }
            try #require(midway, "the changed manifest's run never stored its blobs")
            // Its renders are remembered just after their blobs are stored.
            try await Task.sleep(nanoseconds: 300_000_000)
            try #require(running.process.isRunning, "the run ended before it was killed")
            running.kill(SIGKILL)
            let killed = try await running.wait()
            #expect(killed.signalled, "\(killed)")
            gate.open()

            let verify = try await CLI.run(["verify", "Out/App.warmcache"], in: scratch.url)
            #expect(verify.status == 2, "\(verify)")
            #expect(verify.stderr.contains(".tmp") && verify.stderr.contains("killed"), "\(verify)")
            let report = try BundleVerifier(bundleURL: bundle).verify()
            #expect(report.problems.filter { $0.kind == .orphanBlob }.count == count * perSource, "\(report.problems)")
            #expect(report.problems.contains { $0.kind == .leftover && $0.subject == ".tmp" }, "\(report.problems)")
            #expect(report.problems.allSatisfy { $0.kind == .orphanBlob || $0.kind == .leftover }, "\(report.problems)")

            try await Rewarm.warmApp(in: scratch, encoded: 0, "the unchanged manifest after kill -9")
            let clean = try await CLI.run(["verify", "Out/App.warmcache"], in: scratch.url)
            #expect(clean.status == 0, "\(clean)")
            #expect(Rewarm.blobCount(objects) == published)
            let left = try FileManager.default.contentsOfDirectory(atPath: bundle.path).sorted()
            #expect(left == ["index.sqlite", "objects"], "\(left)")
        }
    }
}
