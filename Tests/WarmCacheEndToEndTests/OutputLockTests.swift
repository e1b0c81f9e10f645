import Foundation
import Testing
import WarmCache
@testable import WarmCacheBuilder
import WarmCacheTestSupport

/// Two runs on one output at once: the second is refused with `locked`, naming the
/// holder, and changes nothing; the first completes normally.
@Suite struct OutputLockTests {
    @Test func aSecondConcurrentRunOnTheSameOutputIsLockedOut() async throws {
        let image = try SourceImages.fixture("chelsea.jpg")
        // The first run's download is held until the second run is over, so the first holds the
        // lock all along, however slowly a busy machine runs either of them.
        let gate = FixtureGate()
        let routes: [String: FixtureRoute] = [
            "/slow.jpg": .held(gate, .image(image.bytes, contentType: image.contentType, etag: "\"s\"")),
        ]
        try await withWorld(routes: routes) { scratch, server in
            defer { gate.open() }
            let manifest = try scratch.write(Manifests.yaml(urls: [server.url("/slow.jpg")]), to: "manifest.yml")
            let first = Task {
                try await Warm.run(manifest, options: Warm.options(cache: scratch.path("cache-1")))
            }
            // A generous bound: it only decides how long a broken run takes to fail.
            let started = await eventually(within: 600) { server.requestCount(for: "/slow.jpg") == 1 }
            #expect(started, "the first run never started")

            let second = try await Warm.run(manifest, options: Warm.options(cache: scratch.path("cache-2")))
            gate.open()
            let error = try #require(second.failure, "the second run was not locked out")
            #expect(error.kind == .locked)
            let bundlePath = scratch.path("Out/Images.warmcache").path
            #expect(error.message.contains(bundlePath), "\(error.message)")
            #expect(error.message.contains("pid \(ProcessInfo.processInfo.processIdentifier)"), "\(error.message)")
            #expect(error.message.contains(OutputLock.lockURL(for: scratch.path("Out/Images.warmcache")).path),
                    "\(error.message)")
            #expect(server.requestCount(for: "/slow.jpg") == 1, "the locked-out run fetched")

            let report = try await first.value.published()
            #expect(report.status == .ok)
            #expect(try CacheBundle(contentsOf: scratch.path("Out/Images.warmcache")).info.sourceCount == 1)

            // The lock went with the first run: a third run goes ahead.
            let third = try await Warm.run(manifest, options: Warm.options(cache: scratch.path("cache-1")))
            #expect(third.failure == nil)
            // The lock lives outside the output's folder: nothing but the bundle ships.
            #expect(try FileManager.default.contentsOfDirectory(atPath: scratch.path("Out").path) == ["Images.warmcache"])
            // And it does not stay in the temporary folder either: one file per bundle ever warmed would pile up.
            let lockFile = OutputLock.lockURL(for: scratch.path("Out/Images.warmcache"))
            #expect(!FileManager.default.fileExists(atPath: lockFile.path), "\(lockFile.path) was left behind")
        }
    }

    /// The holder removes its lock file on release; takers that opened the old file meanwhile
    /// must notice and take the new one. Four threads take one bundle's lock 300 times each:
    /// never two holders at once, and no file left at the end.
    @Test func aRemovedLockFileNeverLetsTwoRunsIn() throws {
        let bundle = FileManager.default.temporaryDirectory
            .appendingPathComponent("lock-race-\(UUID().uuidString)/Images.warmcache")
        let holders = Locked(0)
        let overlaps = Locked(0)
        let taken = Locked(0)
        DispatchQueue.concurrentPerform(iterations: 4) { _ in
            var held = 0
            while held < 300 {
                guard let lock = try? OutputLock(bundleURL: bundle) else { continue }
                let inside = holders.withLock { $0 += 1; return $0 }
                if inside > 1 { overlaps.withLock { $0 += 1 } }
                holders.withLock { $0 -= 1 }
                withExtendedLifetime(lock) {}
                held += 1
            }
            taken.withLock { $0 += held }
        }
        #expect(overlaps.withLock { $0 } == 0)
        #expect(taken.withLock { $0 } == 1200)
        #expect(!FileManager.default.fileExists(atPath: OutputLock.lockURL(for: bundle).path))
    }
}
