import Foundation
import Logging
import WarmCache
import WarmCacheImaging

/// The main job: turns a ``WarmPlan`` into a published bundle.
///
/// Every source runs as its own task: its original is fetched (or found in the originals cache)
/// while other sources encode, then it waits for one of the imaging slots (one per core by
/// default), is decoded once and encoded into all its variants on a Dispatch thread, and its
/// blobs go straight to the bundle's object store. Memory holds at most one original and its
/// variants per imaging slot, whatever the manifest's size; originals wait on disk.
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
        do {
            try writer.prepare()
        } catch {
            throw WarmError(.fileSystem, "\(error)")
        }
        let cacheDirectory = options.resolvedCacheDirectory(for: plan)
        let originals = OriginalsCache(cacheDirectory: cacheDirectory)
        originals.sweepLeftovers()

        let tracker = ProgressTracker(total: plan.sources.count, observer: onProgress)
        let needsNetwork = !options.offline && plan.sources.contains { $0.location.isRemote }
        let fetcher = needsNetwork
            ? ImageFetcher(configuration: FetcherConfiguration(plan.fetch, concurrency: options.fetchConcurrency),
                           logger: logger, onBytes: { tracker.downloaded($0) })
            : nil
        let acquirer = OriginalAcquirer(cache: originals, fetcher: fetcher, options: options, logger: logger)
        let renderer = SourceRenderer(engine: engine, writer: writer, memo: RenderMemo(cacheDirectory: cacheDirectory))
        let imagingSlots = AsyncSemaphore(limit: options.resolvedImagingConcurrency)
        logger.debug("warm started", metadata: [
            "sources": "\(plan.sources.count)", "output": "\(plan.output.path)", "cache": "\(cacheDirectory.path)",
            "imagingSlots": "\(options.resolvedImagingConcurrency)",
        ])

        let outcomes = await withTaskGroup(of: (Int, SourceOutcome).self) { group in
            for (index, source) in plan.sources.enumerated() {
                group.addTask {
                    let outcome = await process(source, acquirer: acquirer, renderer: renderer, slots: imagingSlots)
                    tracker.finished(outcome.report)
                    return (index, outcome)
                }
            }
            var outcomes = [SourceOutcome?](repeating: nil, count: plan.sources.count)
            for await (index, outcome) in group {
                outcomes[index] = outcome
            }
            return outcomes.compactMap { $0 }
        }
        if let fetcher {
            try? await fetcher.shutdown()
        }

        var report = makeReport(outcomes, seconds: ProcessInfo.processInfo.systemUptime - started)
        let succeeded = outcomes.filter { $0.rendered != nil }
        if options.strict, report.totals.sourcesFailed > 0 {
            writer.abandon()
            report.status = .failed
            throw WarmError(.strictFailure, "\(report.totals.sourcesFailed) of \(report.totals.sources) sources failed "
                + "and --strict is set: nothing was written; \(plan.output.path) is unchanged", report: report)
        }
        if succeeded.isEmpty, !plan.sources.isEmpty {
            writer.abandon()
            report.status = .failed
            throw WarmError(.nothingWritten, "all \(plan.sources.count) sources failed: nothing was written; "
                + "\(plan.output.path) is unchanged", report: report)
        }

        let contents = BundleContents(sources: succeeded.compactMap { $0.rendered?.source },
                                      variants: succeeded.flatMap { $0.rendered?.variants ?? [] })
        report.removedSources = removedSources(keeping: Set(contents.sources.map(\.identifier.rawValue)),
                                               writer: writer)
        do {
            let summary = try writer.commit(contents)
            report.totals.blobsRemoved = summary.blobsRemoved
        } catch {
            writer.abandon()
            report.status = .failed
            throw WarmError(.fileSystem, "\(error)", report: report)
        }
        report.seconds = ProcessInfo.processInfo.systemUptime - started
        return report
    }

    /// Sources of the bundle now at the output that the new one will not hold (read before the
    /// switch; an unreadable previous index removes nothing worth listing).
    private func removedSources(keeping kept: Set<String>, writer: BundleWriter) -> [String] {
        guard writer.hasPublishedBundle else { return [] }
        var removed: [String] = []
        try? BundleInspector(bundleURL: plan.output).forEachSourceIdentifier { identifier in
            if !kept.contains(identifier) { removed.append(identifier) }
        }
        return removed
    }

    /// Fails before any work if the manifest asks for a format this libvips cannot encode,
    /// rather than failing every source mid-run.
    private func checkEncoders() throws(WarmError) {
        let available = ImagingEngine.availableFormats()
        var missing: [ImageFormat: Set<String>] = [:]
        for source in plan.sources {
            for variant in source.variants {
                let formats: [ImageFormat]
                switch variant.request.format {
                case .fixed(let format): formats = [format]
                case .auto(let opaque, let alpha): formats = [opaque, alpha]
                }
                for format in formats where !available.contains(format) {
                    missing[format, default: []].insert(variant.preset)
                }
            }
        }
        guard !missing.isEmpty else { return }
        let list = missing.sorted { $0.key.rawValue < $1.key.rawValue }.map { format, presets in
            "\(format.rawValue) (presets: \(presets.sorted().joined(separator: ", ")))"
        }
        throw WarmError(.engine, "this libvips (\(ImagingEngine.libvipsVersion)) cannot encode "
            + list.joined(separator: "; ") + ". It can encode: "
            + available.map(\.rawValue).sorted().joined(separator: ", ")
            + ". Install libvips with those encoders (Debian: libvips-dev brings libheif and libjxl), "
            + "or remove the formats from the manifest.")
    }

    /// What became of one source.
    struct SourceOutcome: Sendable {
        var report: SourceReport
        var rendered: SourceRenderer.Rendered?
    }

    private func process(_ source: PlannedSource, acquirer: OriginalAcquirer, renderer: SourceRenderer,
                         slots: AsyncSemaphore) async -> SourceOutcome {
        let started = ProcessInfo.processInfo.systemUptime
        var report = SourceReport(identifier: source.identifier.rawValue, location: source.location.locationText,
                                  status: .failed, bytesDownloaded: 0, seconds: 0, variants: [], failure: nil,
                                  listedAt: source.manifestLocation.description)
        // Logged at debug level only: the caller prints each failure once, from the report.
        func failed(_ failure: SourceFailure) -> SourceOutcome {
            report.status = .failed
            report.failure = failure
            report.seconds = ProcessInfo.processInfo.systemUptime - started
            logger.debug("\(source.identifier.rawValue): failed (\(failure.kind.rawValue)): \(failure.message)")
            return SourceOutcome(report: report, rendered: nil)
        }

        let acquired: OriginalAcquirer.Acquired
        do {
            acquired = try await acquirer.acquire(source)
        } catch {
            report.bytesDownloaded = error.bytesDownloaded
            return failed(error.failure)
        }
        report.bytesDownloaded = acquired.bytesDownloaded
        report.warnings = acquired.warning.map { [$0] } ?? []

        let result: Result<SourceRenderer.Rendered, SourceRenderer.Failure>
        do {
            result = try await slots.withPermit {
                try await BlockingWork.run {
                    Result { () throws(SourceRenderer.Failure) in
                        try renderer.render(source, original: acquired.fileURL, knownSHA256: acquired.sha256)
                    }
                }
            }
        } catch {
            return failed(SourceFailure(.imaging, "\(error)"))
        }
        switch result {
        case .failure(let failure):
            return failed(failure.failure)
        case .success(let rendered):
            report.status = acquired.status
            report.variants = rendered.reports
            report.originalBytes = rendered.originalBytes
            report.originalSHA256 = rendered.originalSHA256
            report.seconds = ProcessInfo.processInfo.systemUptime - started
            logger.debug("\(source.identifier.rawValue): \(acquired.status.rawValue), \(rendered.reports.count) variants")
            return SourceOutcome(report: report, rendered: rendered)
        }
    }

    private func makeReport(_ outcomes: [SourceOutcome], seconds: Double) -> WarmReport {
        var totals = WarmReport.Totals()
        for outcome in outcomes {
            let report = outcome.report
            totals.sources += 1
            totals.bytesDownloaded += report.bytesDownloaded
            switch report.status {
            case .failed: totals.sourcesFailed += 1
            case .fetched: totals.fetched += 1
            case .revalidated: totals.revalidated += 1
            case .cached: totals.reusedFromCache += 1
            case .local: break
            }
            if report.status != .failed { totals.sourcesOK += 1 }
            totals.bytesIn += report.originalBytes ?? 0
            for variant in report.variants {
                totals.variants += 1
                totals.bytesOut += variant.bytes
                if variant.action == .encoded { totals.variantsEncoded += 1 } else { totals.variantsReused += 1 }
            }
        }
        return WarmReport(manifest: plan.manifestURL.path, output: plan.output.path,
                          status: totals.sourcesFailed == 0 ? .ok : .partial, seconds: seconds, totals: totals,
                          sources: outcomes.map(\.report).sorted { $0.identifier < $1.identifier },
                          warnings: plan.warnings.map(\.description)
                            + outcomes.flatMap { outcome in outcome.report.warnings.map { "\(outcome.report.identifier): \($0)" } })
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
