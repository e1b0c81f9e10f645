import Foundation
import Logging
import WarmCache
import WarmCacheImaging

/// What one warm opens before its first source and holds until its report: the imaging engine
/// (and its processes), the bundle being written, the cache directory's records and originals,
/// the fetcher, the renderer, and the temporary log of the sources' reports.
///
/// Opening it is the warm's first step: it fails before any download when the bundle's folder,
/// the cache or the report's temporary file cannot be used, or an encoder the plan needs is
/// missing.
struct WarmSession: Sendable {
    let engine: ImagingEngine
    let writer: BundleWriter
    let cacheDirectory: URL
    /// The bundle's path, as the records name it.
    let bundlePath: String
    let records: CacheRecords
    /// What the last warm into this bundle (with this cache directory) published there.
    let lastPublished: PublishedIndex?
    /// Interrupted runs' leftovers in the cache, swept while this run works.
    let sweep: Task<Void, Never>
    let tracker: ProgressTracker
    let space: SpaceWatch
    /// `nil` when no source needs the network (or the run is offline).
    let fetcher: ImageFetcher?
    let acquirer: OriginalAcquirer
    /// `nil` when the run renders in its own process.
    let processes: ImagingProcessPool?
    let renderer: SourceRenderer
    /// Sources decoding and encoding at once (with imaging processes, as many again queue for them).
    let imagingSlots: AsyncSemaphore
    let imagingSlotCount: Int
    let log: SourceReportLog

    /// Opens everything `pipeline`'s run needs.
    static func open(for pipeline: WarmPipeline) async throws(WarmError) -> WarmSession {
        let plan = pipeline.plan, options = pipeline.options, logger = pipeline.logger
        let engine: ImagingEngine
        do {
            engine = try ImagingEngine(configuration: ImagingConfiguration())
        } catch {
            throw WarmError(.engine, "the imaging engine could not start: \(PlainReason.of(error))")
        }
        try pipeline.checkEncoders()
        let writer = BundleWriter(bundleURL: plan.output)
        writer.setBeforePublishing(options.beforePublishing)
        let cacheDirectory = options.resolvedCacheDirectory(for: plan)
        let bundlePath = plan.output.standardizedFileURL.path
        // File-system work (listing, creating, sweeping, SQLite, syncfs) never runs on the cooperative
        // pool: a blocked pool thread would stall downloads and their timers.
        let records: CacheRecords
        let lastPublished: PublishedIndex?
        do {
            (records, lastPublished) = try await BlockingWork.run {
                try writer.prepare()
                let records = try CacheRecords(cacheDirectory: cacheDirectory)
                let lastPublished = records.publishedIndex(ofBundleAt: bundlePath)
                // The last warm's record of the index lets a commit that changes nothing skip
                // staging the rows: they wait unstaged until the run adds a blob.
                if lastPublished != nil {
                    try writer.deferRows()
                }
                return (records, lastPublished)
            }
        } catch let error as SQLiteError {
            await BlockingWork.run { writer.abandon() }
            throw WarmError(.fileSystem, "cannot open the cache's records "
                + "\(cacheDirectory.appendingPathComponent(CacheRecords.fileName).path): \(error.message); "
                + "check the cache directory's permissions, or delete the file (originals are then downloaded again)")
        } catch {
            throw WarmError(.fileSystem, "\(PlainReason.of(error))")
        }
        let originals = OriginalsCache(cacheDirectory: cacheDirectory, records: records)
        // Only files older than an hour go.
        let sweep = Task { await BlockingWork.run { originals.sweepLeftovers() } }

        let tracker = ProgressTracker(total: plan.sources.count, observer: pipeline.onProgress)
        let space = SpaceWatch()
        let needsNetwork = !options.offline && plan.sources.contains(where: \.isRemote)
        let fetcher = needsNetwork
            ? ImageFetcher(settings: plan.fetch.overriding(concurrency: options.fetchConcurrency),
                           logger: logger, onBytes: { tracker.downloaded($0); space.downloaded($0) })
            : nil
        let acquirer = OriginalAcquirer(cache: originals, fetcher: fetcher, options: options, logger: logger)
        let processes = options.imagingProcessCommand.map {
            ImagingProcessPool(command: $0, configuration: engine.configuration,
                               vectorPaths: options.imagingProcessVectorPaths, processes: options.resolvedImagingConcurrency,
                               memoryLimit: options.imagingMemoryLimit)
        }
        let renderer = SourceRenderer(engine: engine, processes: processes, writer: writer,
                                      memo: RenderMemo(records: records, configuration: engine.configuration,
                                                       vectorPaths: processes?.vectorPathsEnabled
                                                           ?? ImagingRuntime.state?.vectorPathsEnabled ?? false))
        // With imaging processes, as many sources again wait in the pool's queue as render, so a
        // process that answers starts its next source at once.
        let imagingSlotCount = options.resolvedImagingConcurrency * (processes == nil ? 1 : 2)
        logger.debug("warm started", metadata: [
            "sources": "\(plan.sources.count)", "output": "\(plan.output.path)", "cache": "\(cacheDirectory.path)",
            "imagingSlots": "\(imagingSlotCount)",
        ])
        let log: SourceReportLog
        do {
            let keepsEveryLine = options.reportURL != nil
            log = try await BlockingWork.run { try SourceReportLog(keepsEveryLine: keepsEveryLine) }
        } catch {
            processes?.shutdown()
            await BlockingWork.run { writer.abandon() }
            throw WarmError(.fileSystem, "cannot create the report's temporary file: \(PlainReason.of(error))")
        }
        return WarmSession(engine: engine, writer: writer, cacheDirectory: cacheDirectory, bundlePath: bundlePath,
                           records: records, lastPublished: lastPublished, sweep: sweep, tracker: tracker, space: space,
                           fetcher: fetcher, acquirer: acquirer, processes: processes, renderer: renderer,
                           imagingSlots: AsyncSemaphore(limit: imagingSlotCount), imagingSlotCount: imagingSlotCount,
                           log: log)
    }
}
