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
    ///
    /// The steps: open what the run needs (``WarmSession``); take every source through check,
    /// acquire, render and store (``SourceWindow``, each source in ``process(_:checks:session:)``);
    /// commit the bundle; write the report (``WarmEnding``).
    public func run() async throws(WarmError) -> WarmReport {
        let started = ProcessInfo.processInfo.systemUptime
        let lock = try OutputLock(bundleURL: plan.output)
        defer { withExtendedLifetime(lock) {} }
        let session = try await WarmSession.open(for: self)
        defer { session.processes?.shutdown() }
        let window = 2 * (options.fetchConcurrency ?? plan.fetch.concurrency) + 2 * session.imagingSlotCount
        let sources = await takeSources(session, window: window)
        var ending = await WarmEnding(pipeline: self, session: session, sources: sources, started: started)
        try await commit(session, &ending)
        let status: WarmReport.Status = ending.report.totals.sourcesFailed == 0 ? .ok : .partial
        let (done, problem) = await ending.finish(status)
        if let problem {
            // The bundle is published: the run's outcome stands, and the report's problem is said after it.
            var error = WarmError(.reportNotWritten, problem, report: done)
            error.reportProblem = problem
            throw error
        }
        return done
    }

    /// Every source through check, acquire, render and store. Cancelled (Ctrl-C in the CLI), the
    /// imaging processes are killed at once, the sources in flight fail fast, and the commit
    /// publishes nothing. (A function of its own: `withTaskCancellationHandler` inside `run()`,
    /// which throws a typed error, crashed the Swift 6.3 runtime.)
    private func takeSources(_ session: WarmSession, window: Int) async -> SourceWindow.Outcome {
        await withTaskCancellationHandler {
            await SourceWindow(sources: plan.sources, session: session, size: window) { source, checks in
                await self.process(source, checks: checks, session: session)
            }.run()
        } onCancel: {
            session.processes?.terminate()
        }
    }

    /// Publishes the bundle, unless the run was cancelled, ran out of space, `strict` is set and
    /// a source failed, every source failed, or the bundle would exceed its budget: then nothing
    /// is published, what the run wrote is removed, and the error carries the report.
    private func commit(_ session: WarmSession, _ ending: inout WarmEnding) async throws(WarmError) {
        let writer = session.writer
        let totals = ending.report.totals
        if Task.isCancelled {
            await BlockingWork.run { writer.abandon() }
            throw await ending.failure(.interrupted, "interrupted: nothing was written; \(plan.output.path) is unchanged "
                + "(originals downloaded in full are kept for the next run)")
        }
        if session.space.ranOut || writer.hasRunOutOfSpace {
            throw await ending.outOfSpace()
        }
        if options.strict, totals.sourcesFailed > 0 {
            await BlockingWork.run { writer.abandon() }
            throw await ending.failure(.strictFailure, "\(totals.sourcesFailed) of \(CountText.of(totals.sources, "source")) failed "
                + "and --strict is set: nothing was written; \(plan.output.path) is unchanged")
        }
        if totals.sourcesOK == 0, !plan.sources.isEmpty {
            await BlockingWork.run { writer.abandon() }
            throw await ending.failure(.nothingWritten, (plan.sources.count == 1 ? "the only source" : "all \(plan.sources.count) sources")
                + " failed: nothing was written; "
                + "\(plan.output.path) is unchanged")
        }
        do {
            let fingerprint = plan.fingerprint, shard = plan.shard, lastPublished = session.lastPublished
            // The records are not touched here: the confirmations may still be going in.
            let budget = options.budget ?? plan.budget
            ending.report.budget = budget
            let committed = try await BlockingWork.run {
                try writer.commit(manifestFingerprint: fingerprint, shard: shard, lastPublished: lastPublished,
                                  budget: budget)
            }
            ending.committedIndex = committed.published
            let summary = committed.summary
            ending.report.totals.blobsRemoved = summary.blobsRemoved
            ending.report.removedSources = summary.removedSources
            ending.report.payload = summary.payload
            ending.report.unchanged = summary.unchanged ? true : nil
        } catch var exceeded as BudgetExceeded {
            await BlockingWork.run { writer.abandon() }
            ending.report.payload = exceeded.payload
            let requests = plan.sources.lazy.flatMap(\.variants).map(\.request)
            func isSmallest(_ request: VariantRequest) -> Bool { if case .smallest = request.format { true } else { false } }
            exceeded.advice = BudgetExceeded.advice(
                usesSmallest: requests.allSatisfy(isSmallest),
                usesQualityTarget: requests.contains { isSmallest($0) || $0.quality.values.contains(.perceptual) })
            throw await ending.failure(.overBudget, exceeded.description)
        } catch {
            if DiskSpace.isExhausted(by: error) || writer.hasRunOutOfSpace {
                throw await ending.outOfSpace()
            }
            await BlockingWork.run { writer.abandon() }
            throw await ending.failure(.fileSystem, "\(PlainReason.of(error))")
        }
    }

    /// The warning for a variant whose format could not reach its quality target even at its best
    /// setting, or `nil`.
    static func missedTarget(_ variant: BundleContents.Variant) -> String? {
        guard let target = variant.key.spec.qualityTarget, let found = variant.perceptual,
              found.score < Double(target) else { return nil }
        return "\(variant.key.spec.format.rawValue) at \(variant.pixelSize) px reached SSIMULACRA2 "
            + "\(String(format: "%.1f", found.score)), below its quality_target \(target), even at quality \(found.quality.map(String.init) ?? "-"); "
            + "lower quality_target for it or use another format"
    }

    /// Fails before any work if the manifest asks for a format this libvips cannot encode,
    /// rather than failing every source mid-run.
    func checkEncoders() throws(WarmError) {
        if let error = Self.missingEncoders(plan, canEncode: ImagingEngine.canEncode) { throw error }
    }

    /// The error for the formats `plan` asks for that `canEncode` refuses, each probed once: which
    /// presets ask for them, what this libvips encodes instead, and for a format a libvips module
    /// serves, which module, where it was looked for and how to install it. `nil` when all encode.
    static func missingEncoders(_ plan: WarmPlan, canEncode: (ImageFormat) -> Bool) -> WarmError? {
        var missing: [ImageFormat: Set<String>] = [:]
        var encodable: [ImageFormat: Bool] = [:]  // each format probed once, not once per variant
        for source in plan.sources {
            for variant in source.variants {
                for format in variant.request.format.candidates {
                    if encodable[format] == nil { encodable[format] = canEncode(format) }
                    guard encodable[format] == false else { continue }
                    missing[format, default: []].insert(variant.preset)
                }
            }
        }
        guard !missing.isEmpty else { return nil }
        let available = ImageFormat.allCases.filter { encodable[$0] ?? canEncode($0) }
        let list = missing.sorted { $0.key.rawValue < $1.key.rawValue }.map { format, presets in
            "\(format.rawValue) (presets: \(presets.sorted().joined(separator: ", ")))"
        }
        let advice = missing.keys.sorted().compactMap(ImagingRuntime.missingFormatAdvice)
        return WarmError(.engine, "this libvips (\(ImagingEngine.libvipsVersion)) cannot encode "
            + list.joined(separator: "; ") + ". It can encode: "
            + available.map(\.rawValue).sorted().joined(separator: ", ") + ". "
            + (advice.isEmpty ? "Install libvips with those encoders" : advice.joined(separator: ". "))
            + "; or remove the formats from the manifest.")
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
    static func complete(_ outcomes: [SourceOutcome], acquirer: OriginalAcquirer,
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
                    fail(SourceFailure(.fileSystem, "cannot add it to the index: \(PlainReason.of(error))"))
                }
            }
            return report
        }
    }

    /// One source's steps: acquire its original (downloaded, revalidated, from the cache or a
    /// local file), then reuse an earlier render of it or render and store its variants. What it
    /// owes the records and the index is written later, with other sources' (``complete``).
    private func process(_ source: PlannedSource, checks: SourceWindow.Checks,
                         session: WarmSession) async -> SourceOutcome {
        let cached = checks.cached, reusable = checks.reusable
        let acquirer = session.acquirer, renderer = session.renderer
        let slots = session.imagingSlots, space = session.space
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

        // A disk ran out of space or the run was cancelled: the sources still waiting are not started.
        guard !space.ranOut, !Task.isCancelled else {
            outcome.report.status = .failed
            outcome.report.failure = SourceFailure(.fileSystem, space.ranOut ? "not started: the disk ran out of space"
                                                                             : "not started: the run was interrupted")
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
                    return failed(SourceFailure(.imaging, "\(PlainReason.of(error))"))
                }
                // The slot is the imaging process's: it is handed on as soon as the source is
                // encoded, so that process starts its next source while this one's blobs are stored.
                let tracker = session.tracker, identifier = source.identifier.rawValue
                result = await BlockingWork.run {
                    let imaged = Result { () throws(SourceRenderer.Failure) in
                        try renderer.image(source, pending: pending) { tracker.variantEncoded(by: identifier) }
                    }
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
