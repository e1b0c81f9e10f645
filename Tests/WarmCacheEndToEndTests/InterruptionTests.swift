import Foundation
import Testing
import WarmCache
import WarmCacheBuilder
import WarmCacheTestSupport

/// Ctrl-C (SIGINT) in the middle of a `warm` or a `pull` costs nothing twice: what arrived
/// before it is not downloaded again by the next run, and the bundle in place stays intact.
/// Real processes, a real loopback server counting the responses it sent whole.
@Suite struct InterruptionTests {
    /// The SHA-256 of the published index: what "the bundle in place" is.
    private func indexHash(_ bundle: URL) throws -> String {
        ContentHash.sha256(try Data(contentsOf: bundle.appendingPathComponent("index.sqlite")))
    }

    @Test func anInterruptedWarmFetchesNothingTwiceAndKeepsTheBundle() async throws {
        let images = try SourceImages.distinct(18)
        let gate = FixtureGate()
        var routes = SourceImages.routes(images, under: "s")
        // The last 12 answer only once the gate opens: the run is mid-way while they wait.
        for index in 6..<18 {
            routes["/s/\(index)"] = .held(gate, routes["/s/\(index)"]!)
        }
        try await withWorld(routes: routes) { scratch, server in
            let urls = (0..<18).map { server.url("/s/\($0)") }
            let bundle = scratch.path("Out/Images.warmcache")
            let arguments = ["warm", "manifest.yml", "--cache-dir", "cache", "-q"]
            // The bundle in place: the first two sources.
            try scratch.write(Manifests.yaml(urls: Array(urls.prefix(2))), to: "manifest.yml")
            let first = try await CLI.run(arguments, in: scratch.url)
            try #require(first.status == 0, "\(first)")
            let before = try indexHash(bundle)

            try scratch.write(Manifests.yaml(urls: urls), to: "manifest.yml")
            server.resetStatistics()
            let running = try CLI.start(arguments, in: scratch.url)
            let fast = (2..<6).map { "/s/\($0)" }
            // Sent in full is not yet kept: wait until the six originals are renamed into the
            // originals cache (however long a loaded machine takes), not for a fixed time.
            let originals = scratch.path("cache/originals")
            let arrived = await eventually(within: 120) {
                fast.allSatisfy { server.fullResponseCount(for: $0) == 1 }
                    && snapshot(of: originals).keys.filter { $0.hasSuffix(".orig") }.count == 6
            }
            try #require(arrived, "the first originals never arrived")
            try #require(running.process.isRunning, "the run ended before it was interrupted")
            running.kill(SIGINT)
            let interrupted = try await running.wait()
            #expect(interrupted.signalled || interrupted.status != 0, "\(interrupted)")
            #expect(try indexHash(bundle) == before, "the bundle in place changed")
            #expect(try BundleVerifier(bundleURL: bundle).verify().isValid)

            // The next run: nothing received before the interrupt comes again in full.
            gate.open()
            server.resetStatistics()
            let next = try await CLI.run(arguments, in: scratch.url)
            #expect(next.status == 0, "\(next)")
            for path in ["/s/0", "/s/1"] + fast {
                #expect(server.fullResponseCount(for: path) == 0, "\(path) was downloaded again")
            }
            for index in 6..<18 {
                #expect(server.fullResponseCount(for: "/s/\(index)") == 1, "/s/\(index)")
            }
            let verification = try BundleVerifier(bundleURL: bundle).verify()
            #expect(verification.isValid && verification.warnings.isEmpty, "\(verification.warnings)")
            #expect(try CacheBundle(contentsOf: bundle).info.sourceCount == 18)
        }
    }

    @Test func anInterruptedPullFetchesNoBlobTwiceAndKeepsTheBundle() async throws {
        let images = try SourceImages.distinct(12)
        try await withWorld(routes: SourceImages.routes(images, under: "p")) { scratch, server in
            let (urls, published, release) = try await scratch.serveRelease(of: 12, on: server)
            let base = release.absoluteString
            let local = scratch.path("local/Images.warmcache")
            let pull = ["pull", base, local.path, "--insecure-unsigned", "--concurrency", "2"]
            let installed = try await CLI.run(pull, in: scratch.url)
            try #require(installed.status == 0, "\(installed)")
            let before = try indexHash(local)

            // A new release; past its first blobs (in the order the updater fetches them, by
            // hash) the server holds every blob back: the pull is mid-way.
            let index = published.appendingPathComponent("index.sqlite").path
            let old = try ObjectStore.referencedFileNames(ofIndexAt: index)
            try await scratch.publishRelease(of: urls, quality: 70)
            // The blobs the new release adds (lossless ones stay the same whatever the quality).
            let added = try ObjectStore.referencedFileNames(ofIndexAt: index).subtracting(old)
            try #require(added.count > 12, "\(added.count) new blobs")
            let blobs = added.sorted().map { "/pub/Images.warmcache/objects/\($0.prefix(2))/\($0)" }
            let gate = FixtureGate()
            let early = Array(blobs.prefix(8))
            for path in blobs.dropFirst(8) {
                let file = published.appendingPathComponent(String(path.dropFirst("/pub/Images.warmcache/".count)))
                server.setRoute(path, .held(gate, .image(Array(try Data(contentsOf: file)), contentType: "image/jpeg")))
            }
            server.resetStatistics()
            let running = try CLI.start(pull, in: scratch.url)
            // Sent in full is not yet kept: wait until the eight blobs are verified and moved
            // into the updater's folder (however long a loaded machine takes).
            let verified = local.appendingPathComponent(".update/verified")
            let names = Set(early.map { URL(fileURLWithPath: $0).lastPathComponent })
            let arrived = await eventually(within: 120) {
                let kept = Set(snapshot(of: verified).keys.map { URL(fileURLWithPath: $0).lastPathComponent })
                return early.allSatisfy { server.fullResponseCount(for: $0) == 1 } && names.isSubset(of: kept)
            }
            try #require(arrived, "the first blobs never arrived")
            try #require(running.process.isRunning, "the pull ended before it was interrupted")
            running.kill(SIGINT)
            let interrupted = try await running.wait()
            #expect(interrupted.signalled || interrupted.status != 0, "\(interrupted)")
            #expect(try indexHash(local) == before, "the installed bundle changed")
            #expect(try BundleVerifier(bundleURL: local).verify().isValid)

            gate.open()
            server.resetStatistics()
            let next = try await CLI.run(pull, in: scratch.url)
            #expect(next.status == 0, "\(next)")
            for path in early {
                #expect(server.fullResponseCount(for: path) == 0, "\(path) was downloaded again")
            }
            for path in blobs.dropFirst(8) {
                #expect(server.fullResponseCount(for: path) == 1, "\(path)")
            }
            #expect(try indexHash(local) == (try indexHash(published)))
            let verification = try BundleVerifier(bundleURL: local).verify()
            #expect(verification.isValid && verification.warnings.isEmpty, "\(verification.warnings)")
        }
    }
}
