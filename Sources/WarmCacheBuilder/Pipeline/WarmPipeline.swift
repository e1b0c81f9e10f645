import Foundation
import Logging
import WarmCache
import WarmCacheImaging

/// The main job: turns a ``WarmPlan`` into a published bundle.
///
/// Sources enter through a bounded window, in plan order: each runs as a task while it is in
/// flight. Its original is fetched (or found in the originals cache) while other sources
/// encode, and an earlier identical render is looked up (a re-warm stops there); otherwise it
/// waits for one of the imaging slots (one per core by default), is decoded once and encoded
/// into all its variants on a Dispatch thread; its blobs go straight to the bundle's
/// object store, its index rows to the index being built on disk, and its report line to a
/// temporary file. Memory holds only the sources in flight, whatever the manifest's size.
///
/// A failed source does not stop the others. At the end the index is published atomically
/// with every source that succeeded, unless `strict` is set and one failed, or none succeeded:
/// then nothing is published and the previous bundle stays as it was.
public struct WarmPipeline: Sendable {
    public let plan: WarmPlan
    public let options: WarmOptions
    public let logger: Logger
    /// Called after each source finishes and as downloaded bytes arrive (often: throttle what
    /// you draw), from any thread.
    public var onProgress: (@Sendable (WarmProgress) -> Void)?

    public init(plan: WarmPlan, options: WarmOptions = WarmOptions(), logger: Logger,
                onProgress: (@Sendable (WarmProgress) -> Void)? = nil) {
        self.plan = plan
        self.options = options
        self.logger = logger
        self.onProgress = onProgress
    }

    /// Runs the job. Returns the report when the bundle was published (check
    /// ``WarmReport/status`` for `partial`); throws ``WarmError`` when nothing was.
    public func run() async throws(WarmError) -> WarmReport {
        let started = ProcessInfo.processInfo.systemUptime
        let lock = try OutputLock(bundleURL: plan.output)
        defer { withExtendedLifetime(lock) {} }

        let engine: ImagingEngine
        do {
            engine = try ImagingEngine(configuration: ImagingConfiguration())
        } catch {
            throw WarmError(.engine, "the imaging engine could not start: \(error)")
        }
        try checkEncoders()
        let writer = BundleWriter(bundleURL: plan.output)
        let cacheDirectory = options.resolvedCacheDirectory(for: plan)
        // File-system work (listing, creating, sweeping, SQLite, syncfs) never runs on the cooperative
        // pool: a blocked pool thread would stall downloads and their timers.
        let records: CacheRecords
        // What the last warm into this bundle left there (with this cache directory), and what
        // this one's commit leaves (saved with the run's last write to the records).
        let lastPublished: PublishedIndex?
        var committedIndex: PublishedIndex?? = nil
        let bundlePath = plan.output.standardizedFileURL.path
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
            throw WarmError(.fileSystem, "\(error)")
        }
        let originals = OriginalsCache(cacheDirectory: cacheDirectory, records: records)
        // Interrupted runs' leftovers are swept while this run works (only files older than an hour go).
        let sweep = Task { await BlockingWork.run { originals.sweepLeftovers() } }

        let tracker = ProgressTracker(total: plan.sources.count, observer: onProgress)
        let space = SpaceWatch()
        let needsNetwork = !options.offline && plan.sources.contains(where: \.isRemote)
        let fetcher = needsNetwork
            ? ImageFetcher(settings: plan.fetch.overriding(concurrency: options.fetchConcurrency),
                           logger: logger, onBytes: { tracker.downloaded($0); space.downloaded($0) })
            : nil
        let acquirer = OriginalAcquirer(cache: originals, fetcher: fetcher, options: options, logger: logger)
        let processes = options.imagingProcessCommand.map {
            ImagingProcessPool(command: $0, configuration: engine.configuration,
                               vectorPaths: options.imagingProcessVectorPaths, processes: options.resolvedImagingConcurrency)
        }
        defer { processes?.shutdown() }
        let renderer = SourceRenderer(engine: engine, processes: processes, writer: writer,
                                      memo: RenderMemo(records: records, configuration: engine.configuration,
                                                       vectorPaths: processes?.vectorPathsEnabled
                                                           ?? ImagingRuntime.state?.vectorPathsEnabled ?? false))
        // With imaging processes, as many sources again wait in the pool's queue as render, so a
        // process that answers starts its next source at once.
        let imagingSlotCount = options.resolvedImagingConcurrency * (processes == nil ? 1 : 2)
        let imagingSlots = AsyncSemaphore(limit: imagingSlotCount)
        logger.debug("warm started", metadata: [
            "sources": "\(plan.sources.count)", "output": "\(plan.output.path)", "cache": "\(cacheDirectory.path)",
            "imagingSlots": "\(imagingSlotCount)",
        ])

        let log: SourceReportLog
        do {
            let keepsEveryLine = options.reportURL != nil
            log = try await BlockingWork.run { try SourceReportLog(keepsEveryLine: keepsEveryLine) }
        } catch {
            await BlockingWork.run { writer.abandon() }
            throw WarmError(.fileSystem, "cannot create the report's temporary file: \(error)")
        }
        // Sources enter through a window: twice as many as can be fetched and hold an imaging
        // slot at once, so nothing waits for work, and memory holds only what is in flight (and
        // the records of the next two batches, read ahead).
        let window = 2 * (options.fetchConcurrency ?? plan.fetch.concurrency) + 2 * imagingSlotCount
        var report = WarmReport(manifest: plan.manifestURL.path, output: plan.output.path, status: .ok, seconds: 0,
                                totals: WarmReport.Totals(), sources: [], warnings: [])
        let manifestWarnings = plan.warnings.map(\.description)
        var logFailure: Error?
        await withTaskGroup(of: SourceOutcome.self) { group in
            let end = plan.sources.endIndex
            var next = plan.sources.startIndex
            var inFlight = 0
            var finished: [SourceOutcome] = []
            var lastStep = ProcessInfo.processInfo.systemUptime
            // Sources enter and are completed half the window at a time, or whatever is there
            // when the last step was a moment ago (slow sources are not held back). Fewer, larger
            // steps cost a re-warm less (a quarter at a time: 5 % more of its time, 8 % more CPU).
            let batch = max(1, window / 2)
            // Each step lets in a batch of sources whose cache records (and earlier renders) were
            // read ahead on Dispatch threads while the others ran (two batches are read ahead;
            // reading them as they entered held a re-warm's loop up for most of its time), and
            // hands the sources that finished to another Dispatch thread to be completed (the
            // records they owe written, their rows staged, their report lines logged). A re-warm's
            // source then needs no thread hop of its own (it finishes faster than threads wake
            // up). Completions run one after another, each beside the next step; a step counts
            // the sources the previous one completed.
            var ahead: [(sources: ArraySlice<PlannedSource>, checks: Task<[SourceChecks], Never>)] = []
            let aheadBatches = 2
            var completing: Task<(reports: [SourceReport], logError: Error?), Never>?
            func counted(_ completion: Task<(reports: [SourceReport], logError: Error?), Never>?) async {
                guard let (reports, logError) = await completion?.value else { return }
                if let logError { logFailure = logFailure ?? logError }
                for source in reports {
                    tracker.finished(source)
                    report.totals.add(source)
                    report.warnings += source.warnings.map { "\(source.identifier): \($0)" }
                }
            }
            @Sendable func check(_ sources: ArraySlice<PlannedSource>) -> [SourceChecks] {
                sources.map { source in
                    let cached = acquirer.check(source)
                    return SourceChecks(cached: cached,
                                        reusable: cached?.sha256.flatMap { renderer.reusable(source, originalSHA256: $0) })
                }
            }
            func enter(_ sources: ArraySlice<PlannedSource>, _ checks: [SourceChecks]) {
                for (source, checks) in zip(sources, checks) {
                    inFlight += 1
                    group.addTask {
                        await process(source, cached: checks.cached, reusable: checks.reusable, acquirer: acquirer,
                                      renderer: renderer, slots: imagingSlots, space: space)
                    }
                }
            }
            func step() async {
                lastStep = ProcessInfo.processInfo.systemUptime
                let room = window - inFlight
                if let (sources, checks) = ahead.first {
                    if room > 0 {
                        ahead.removeFirst()
                        enter(sources, await checks.value)
                    }
                } else if room > 0, next < end {
                    // The first step fills the window; its records are read here.
                    let sources = plan.sources[next..<min(next + room, end)]
                    next = sources.endIndex
                    let checks = await BlockingWork.run { check(sources) }
                    // Originals not in the cache are downloaded and rendered: their imaging
                    // processes start while the first ones download.
                    processes?.prestart(zip(sources, checks).count { $0.isRemote && $1.cached?.found == nil })
                    enter(sources, checks)
                }
                while ahead.count < aheadBatches, next < end {
                    let sources = plan.sources[next..<min(next + batch, end)]
                    next = sources.endIndex
                    ahead.append((sources, Task { await BlockingWork.run { check(sources) } }))
                }
                await counted(completing)
                let done = finished
                finished.removeAll(keepingCapacity: true)
                completing = done.isEmpty ? nil : Task {
                    await BlockingWork.run {
                        let reports = Self.complete(done, acquirer: acquirer, writer: writer, space: space)
                        var logError: Error?
                        do { try log.append(contentsOf: reports) } catch { logError = error }
                        return (reports, logError)
                    }
                }
            }
            await step()
            repeat {
                while let outcome = await group.next() {
                    inFlight -= 1
                    finished.append(outcome)
                    if window - inFlight >= batch || ProcessInfo.processInfo.systemUptime - lastStep > 0.25 {
                        await step()
                    }
                }
                // Nothing in flight: the rest enter (or the last finished sources are completed).
                if !ahead.isEmpty || !finished.isEmpty { await step() }
            } while inFlight > 0
            await counted(completing)
        }
        if let fetcher {
            try? await fetcher.shutdown()
        }
        // The imaging processes exit (and are waited for) while the bundle is committed.
        let stopping = processes.map { processes in Task { await BlockingWork.run { processes.shutdown() } } }
        // Confirmations kept in memory go to the records while the bundle is committed (another
        // file); a failure only loses when originals were last confirmed.
        let confirmations = Task { await BlockingWork.run { try? records.flush() } }
        // So are the report's lines, sorted, into a file beside the report (the report file gets
        // its head once the commit is done).
        let reportURL = options.reportURL
        let reportLines = reportURL.map { url in
            Task { await BlockingWork.run { Result { try log.writeLines(beside: url) } } }
        }
        await sweep.value

        /// Writes the report (with `status`) and returns it, with why it could not be written, if
        /// it could not. Every way out of the run goes through here, so a report that cannot be
        /// written never hides the run's own outcome.
        func finished(_ status: WarmReport.Status) async -> (report: WarmReport, problem: String?) {
            // While the report is written, once the confirmations are in: the record of the index
            // just committed (one that cannot be saved only costs the next run a comparison of the
            // rows), then the records' log into their file (nothing writes the records after that).
            let committed = committedIndex
            let checkpoint = Task {
                await confirmations.value
                await BlockingWork.run {
                    if let committed { try? records.savePublishedIndex(committed, ofBundleAt: bundlePath) }
                    records.checkpointLog()
                }
            }
            let lines = await reportLines?.value
            await stopping?.value
            report.status = status
            report.seconds = ProcessInfo.processInfo.systemUptime - started
            report.warnings = manifestWarnings + report.warnings.sorted()
            var problem: String?
            do {
                if let logFailure {
                    if case .success(let url) = lines { try? FileManager.default.removeItem(at: url) }
                    throw logFailure
                }
                let head = report
                try await BlockingWork.run {
                    if let reportURL, let lines {
                        try log.write(head, to: reportURL, lines: try lines.get())
                    }
                }
            } catch {
                problem = "cannot write the report" + (options.reportURL.map { " to \($0.path)" } ?? "")
                    + ": \(error.localizedDescription)"
            }
            // The run's failures, for the lines said about them, whether the report was written or not.
            report.sources = (try? await BlockingWork.run { try log.failures() }) ?? []
            await checkpoint.value
            return (report, problem)
        }
        /// The run's failure, with its report and any problem writing that report.
        func failure(_ kind: WarmError.Kind, _ message: String, status: WarmReport.Status = .failed) async -> WarmError {
            let (report, problem) = await finished(status)
            var error = WarmError(kind, message, report: report)
            error.reportProblem = problem
            return error
        }

        /// Stops the run on a full disk: removes what it wrote, then says so in one line (which
        /// disk, roughly what the run needs there, what is free once its files are gone).
        func outOfSpace() async -> WarmError {
            let cachePath = cacheDirectory.standardizedFileURL.path
            let full = DiskSpace.fullest(of: [bundlePath, cachePath]) ?? bundlePath
            let attempted = max(1, space.attempted)
            let needed = (space.downloadedBytes + writer.bytesWritten) / attempted * plan.sources.count
            let outOfInodes = DiskSpace.isOutOfInodes(at: full)
            await BlockingWork.run { writer.abandon() }
            let message = "out of disk space: "
                + DiskSpace.shortage(at: full, needed: needed, outOfInodes: outOfInodes)
                + "; free some space there, or put the bundle (-o) or the cache (--cache-dir) on another disk, "
                + "then run again; \(plan.output.path) is unchanged and this run's files were removed"
            return await failure(.outOfSpace, message)
        }

        let totals = report.totals
        if space.ranOut || writer.hasRunOutOfSpace {
            throw await outOfSpace()
        }
        if options.strict, totals.sourcesFailed > 0 {
            await BlockingWork.run { writer.abandon() }
            throw await failure(.strictFailure, "\(totals.sourcesFailed) of \(totals.sources) sources failed "
                + "and --strict is set: nothing was written; \(plan.output.path) is unchanged")
        }
        if totals.sourcesOK == 0, !plan.sources.isEmpty {
            await BlockingWork.run { writer.abandon() }
            throw await failure(.nothingWritten, "all \(plan.sources.count) sources failed: nothing was written; "
                + "\(plan.output.path) is unchanged")
        }
        do {
            let fingerprint = plan.fingerprint, shard = plan.shard
            // The records are not touched here: the confirmations may still be going in.
            let budget = options.budget ?? plan.budget
            report.budget = budget
            let committed = try await BlockingWork.run {
                try writer.commit(manifestFingerprint: fingerprint, shard: shard, lastPublished: lastPublished,
                                  budget: budget)
            }
            committedIndex = .some(committed.published)
            let summary = committed.summary
            report.totals.blobsRemoved = summary.blobsRemoved
            report.removedSources = summary.removedSources
            report.payload = summary.payload
        } catch let exceeded as BudgetExceeded {
            await BlockingWork.run { writer.abandon() }
            report.payload = exceeded.payload
            throw await failure(.overBudget, exceeded.description)
        } catch {
            if DiskSpace.isExhausted(by: error) || writer.hasRunOutOfSpace {
                throw await outOfSpace()
            }
            await BlockingWork.run { writer.abandon() }
            throw await failure(.fileSystem, "\(error)")
        }
        let status: WarmReport.Status = totals.sourcesFailed == 0 ? .ok : .partial
        let (done, problem) = await finished(status)
        if let problem {
            // The bundle is published: the run's outcome stands, and the report's problem is said after it.
            var error = WarmError(.reportNotWritten, problem, report: done)
            error.reportProblem = problem
            throw error
        }
        return done
    }

    /// The warning for a variant whose format could not reach its quality target even at its best
    /// setting, or `nil`.
    static func missedTarget(_ variant: BundleContents.Variant) -> String? {
        guard let target = variant.key.spec.qualityTarget, let found = variant.perceptual,
              found.score < Double(target) else { return nil }
        return "\(variant.key.spec.format.rawValue) at \(variant.pixelSize) px reached SSIMULACRA2 "
            + "\(String(format: "%.1f", found.score)), below its quality_target \(target), even at quality \(found.quality); "
            + "lower quality_target for it or use another format"
    }

    /// Fails before any work if the manifest asks for a format this libvips cannot encode,
    /// rather than failing every source mid-run.
    private func checkEncoders() throws(WarmError) {
        var missing: [ImageFormat: Set<String>] = [:]
        var encodable: [ImageFormat: Bool] = [:]  // each format probed once, not once per variant
        for source in plan.sources {
            for variant in source.variants {
                for format in variant.request.format.candidates {
                    if encodable[format] == nil { encodable[format] = ImagingEngine.canEncode(format) }
                    guard encodable[format] == false else { continue }
                    missing[format, default: []].insert(variant.preset)
                }
            }
        }
        guard !missing.isEmpty else { return }
        let available = ImagingEngine.availableFormats()
        let list = missing.sorted { $0.key.rawValue < $1.key.rawValue }.map { format, presets in
            "\(format.rawValue) (presets: \(presets.sorted().joined(separator: ", ")))"
        }
        throw WarmError(.engine, "this libvips (\(ImagingEngine.libvipsVersion)) cannot encode "
            + list.joined(separator: "; ") + ". It can encode: "
            + available.map(\.rawValue).sorted().joined(separator: ", ")
            + ". Install libvips with those encoders (Debian: libvips-dev brings libheif and libjxl), "
            + "or remove the formats from the manifest.")
    }

    /// What became of one source, and what it still owes: the record of its original and its
    /// index rows, written with other sources' (``complete(_:acquirer:writer:)``).
    struct SourceOutcome: Sendable {
        var report: SourceReport
        /// Set once the original was obtained, whatever happened next (its record is still written).
        var acquired: OriginalAcquirer.Acquired?
        /// Set when the source succeeded.
        var rows: SourceRenderer.Rendered?
    }

    /// Writes what `outcomes` owe, in order: each original's record, then each successful
    /// source's index rows. A source whose download cannot be recorded, or whose rows cannot be
    /// staged, fails. Blocking (SQLite): runs on a Dispatch thread.
    private static func complete(_ outcomes: [SourceOutcome], acquirer: OriginalAcquirer,
                                 writer: BundleWriter, space: SpaceWatch) -> [SourceReport] {
        outcomes.map { outcome in
            var report = outcome.report
            func fail(_ failure: SourceFailure) {
                space.note(failure)
                report.status = .failed
                report.failure = failure
                report.variants = []
                report.originalBytes = nil
                report.originalSHA256 = nil
            }
            if let acquired = outcome.acquired {
                do throws(OriginalAcquirer.Failure) {
                    try acquirer.writeRecord(of: acquired)
                } catch {
                    if report.status != .failed { fail(error.failure) }
                    return report
                }
            }
            if let rows = outcome.rows {
                do {
                    try writer.add(rows.source, variants: rows.variants)
                } catch {
                    fail(SourceFailure(.fileSystem, "cannot add it to the index: \(error)"))
                }
            }
            return report
        }
    }

    /// What a source's entry into the window found in the cache: its original's record and, for
    /// that original, an earlier render to reuse.
    private struct SourceChecks: Sendable {
        var cached: OriginalAcquirer.Cached?
        var reusable: SourceRenderer.Rendered?
    }

    private func process(_ source: PlannedSource, cached: OriginalAcquirer.Cached?,
                         reusable: SourceRenderer.Rendered?, acquirer: OriginalAcquirer, renderer: SourceRenderer,
                         slots: AsyncSemaphore, space: SpaceWatch) async -> SourceOutcome {
        let started = ProcessInfo.processInfo.systemUptime
        var outcome = SourceOutcome(report: SourceReport(
            identifier: source.identifier.rawValue, location: source.location.locationText, status: .failed,
            bytesDownloaded: 0, seconds: 0, variants: [], failure: nil, listedAt: source.manifestLocation.description))
        // Logged at debug level only: the caller prints each failure once, from the report.
        func failed(_ failure: SourceFailure) -> SourceOutcome {
            space.note(failure)
            outcome.report.status = .failed
            outcome.report.failure = failure
            outcome.report.seconds = ProcessInfo.processInfo.systemUptime - started
            logger.debug("\(source.identifier.rawValue): failed (\(failure.kind.rawValue)): \(failure.message)")
            return outcome
        }

        // A disk ran out of space: the run stops, so the sources still waiting are not started.
        guard !space.ranOut else {
            outcome.report.status = .failed
            outcome.report.failure = SourceFailure(.fileSystem, "not started: the disk ran out of space")
            return outcome
        }
        space.attempt()

        // `reusable` is the earlier render of the cached original (found when its record was
        // read): if the server confirms that original, the source is done.
        var fetched: OriginalAcquirer.Acquired
        do {
            fetched = try await acquirer.acquire(source, cached: cached)
        } catch {
            outcome.report.bytesDownloaded = error.bytesDownloaded
            return failed(error.failure)
        }
        // A download is recorded as soon as it lands, not with its source's other writes once
        // rendered: a run interrupted (Ctrl-C, a kill) a moment later never downloads it again.
        if case .downloaded = fetched.pendingRecord {
            let landed = fetched
            let recorded = await BlockingWork.run {
                Result { () throws(OriginalAcquirer.Failure) in try acquirer.writeRecord(of: landed) }
            }
            if case .failure(let failure) = recorded {
                outcome.report.bytesDownloaded = failure.bytesDownloaded
                return failed(failure.failure)
            }
            fetched.pendingRecord = nil
        }
        let acquired = fetched
        outcome.acquired = acquired
        outcome.report.bytesDownloaded = acquired.bytesDownloaded
        outcome.report.warnings = acquired.warning.map { [$0] } ?? []

        let rendered: SourceRenderer.Rendered
        if let reusable, reusable.source.contentSHA256 == acquired.sha256 {
            rendered = reusable
        } else {
            // Look up an earlier render first, without an imaging slot: only sources that must be
            // rendered take one.
            let lookUp = await BlockingWork.run {
                Result { () throws(SourceRenderer.Failure) -> SourceRenderer.LookUp in
                    try renderer.lookUp(source, original: acquired.fileURL, knownSHA256: acquired.sha256)
                }
            }
            let result: Result<SourceRenderer.Rendered, SourceRenderer.Failure>
            switch lookUp {
            case .failure(let failure):
                result = .failure(failure)
            case .success(.reused(let reused)):
                result = .success(reused)
            case .success(.needsRender(let pending)):
                do {
                    // Larger originals first (their size standing in for their work): a large photo
                    // that arrives last would otherwise render alone at the end of the run while
                    // the other imaging processes sit idle. Downloaded, cached or local alike.
                    try await slots.acquire(priority: pending.byteCount)
                } catch {
                    return failed(SourceFailure(.imaging, "\(error)"))
                }
                // The slot is the imaging process's: it is handed on as soon as the source is
                // encoded, so that process starts its next source while this one's blobs are stored.
                result = await BlockingWork.run {
                    let imaged = Result { () throws(SourceRenderer.Failure) in try renderer.image(source, pending: pending) }
                    slots.release()
                    return imaged.flatMap { imaged in
                        Result { () throws(SourceRenderer.Failure) in
                            try renderer.store(source, imaged: imaged, pending: pending)
                        }
                    }
                }
            }
            switch result {
            case .failure(let failure):
                return failed(failure.failure)
            case .success(let made):
                rendered = made
            }
        }
        outcome.rows = rendered
        outcome.report.status = acquired.status
        outcome.report.variants = rendered.variants.map { VariantReport($0, action: rendered.action) }
        outcome.report.warnings += rendered.variants.compactMap(Self.missedTarget)
        outcome.report.originalBytes = rendered.source.byteCount
        outcome.report.originalSHA256 = rendered.source.contentSHA256
        outcome.report.seconds = ProcessInfo.processInfo.systemUptime - started
        logger.debug("\(source.identifier.rawValue): \(acquired.status.rawValue), \(rendered.variants.count) variants")
        return outcome
    }
}

/// What a run knows of its disks running out of space: whether one did (a source's failure or
/// a record's said so), and what the run downloaded and tried, for a rough estimate of what it needs.
final class SpaceWatch: Sendable {
    private let state = Locked((ranOut: false, attempted: 0, downloaded: 0))

    var ranOut: Bool { state.withLock { $0.ranOut } }
    var attempted: Int { state.withLock { $0.attempted } }
    var downloadedBytes: Int { state.withLock { $0.downloaded } }

    /// A source started its work.
    func attempt() { state.withLock { $0.attempted += 1 } }

    func downloaded(_ bytes: Int) { state.withLock { $0.downloaded += bytes } }

    /// Notes a source's failure: one that says a disk is full stops the run.
    func note(_ failure: SourceFailure) {
        if DiskSpace.isExhausted(message: failure.message) {
            state.withLock { $0.ranOut = true }
        }
    }
}

extension WarmReport.Totals {
    /// Counts one finished source.
    mutating func add(_ report: SourceReport) {
        sources += 1
        bytesDownloaded += report.bytesDownloaded
        switch report.status {
        case .failed: sourcesFailed += 1
        case .fetched: fetched += 1
        case .revalidated: revalidated += 1
        case .cached: reusedFromCache += 1
        case .local: break
        }
        if report.status != .failed { sourcesOK += 1 }
        bytesIn += report.originalBytes ?? 0
        for variant in report.variants {
            variants += 1
            bytesOut += variant.bytes
            if variant.action == .encoded { variantsEncoded += 1 } else { variantsReused += 1 }
        }
    }
}

extension PlannedSource.Location {
    /// The URL, or the file path, as text.
    var locationText: String {
        switch self {
        case .remote(let url): return url.absoluteString
        case .file(let url): return url.path
        }
    }
}
