import Foundation
import Testing
import WarmCache
import WarmCacheBuilder
import WarmCacheTestSupport

/// What the progress line is made of: variants counted as each is encoded (in this process or
/// in an imaging process), not when their source is done; a download rate only while bytes arrive.
@Suite struct ProgressTests {
    @Test(arguments: [false, true])
    func variantsAreCountedAsTheyAreEncoded(inProcesses: Bool) async throws {
        try await withWorld { scratch, _ in
            let manifest = try ReproducibleBytesTests.manifest(in: scratch, named: "m.yml", photos: ["rocket.jpg"],
                                                               presets: ["thumb", "card"])
            var plan = try ManifestLoader(environment: [:]).load(contentsOf: manifest)
            plan.output = scratch.path("Out/Images.warmcache")
            var options = Warm.options(cache: scratch.path("c"))
            if inProcesses { options.imagingProcessCommand = try ImagingProcessTests.workerCommand() }
            let snapshots = Snapshots()
            let report = try await WarmPipeline(plan: plan, options: options, logger: Warm.logger,
                                                onProgress: { snapshots.append($0) }).run()
            let variants = report.totals.variantsEncoded
            #expect(variants == 8)
            let seen = snapshots.all
            // Every count from 1 to all of them while the only source was still being imaged.
            let during = Set(seen.filter { $0.sourcesDone == 0 }.map(\.variantsWritten))
            #expect(during == Set(1...variants), "\(seen.map { "\($0.sourcesDone)/\($0.variantsWritten)" })")
            // (Snapshots are delivered outside the tracker's lock: they may arrive out of order.)
            #expect(seen.contains { $0.sourcesDone == 1 && $0.variantsWritten == variants })
            #expect(!seen.contains { $0.variantsWritten > variants })
        }
    }

    @Test func theDownloadRateIsTheDownloadsOwnAndStopsWithThem() {
        var progress = WarmProgress(sourcesTotal: 3, bytesDownloaded: 4_000_000, elapsed: 3)
        #expect(!progress.isDownloading && progress.downloadRate == 0, "nothing downloaded yet")
        progress.downloadStarted = 1
        progress.lastDownload = 3
        #expect(progress.isDownloading)
        #expect(progress.downloadRate == 2_000_000)
        // Long after the last byte: no longer downloading, and the rate is what it was, not
        // the bytes spread over the whole run.
        progress.elapsed = 60
        #expect(!progress.isDownloading)
        #expect(progress.downloadRate == 2_000_000)
    }
}

/// The snapshots a run delivered, from any thread.
private final class Snapshots: @unchecked Sendable {
    private let lock = NSLock()
    private var values: [WarmProgress] = []

    func append(_ progress: WarmProgress) {
        lock.lock()
        values.append(progress)
        lock.unlock()
    }

    var all: [WarmProgress] {
        lock.lock()
        defer { lock.unlock() }
        return values
    }
}
