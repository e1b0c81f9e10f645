import Foundation
import WarmCache

/// The warm's last step, whatever its outcome: the report.
///
/// Made once every source is done, it starts what can run beside the commit: the fetcher and
/// the imaging processes stop, the confirmations kept in memory go to the cache's records, and
/// the report's lines are sorted into a file beside the report. ``finish(_:)`` then writes the
/// report. Every way out of the run goes through it, so a report that cannot be written never
/// hides the run's own outcome.
struct WarmEnding {
    let pipeline: WarmPipeline
    let session: WarmSession
    /// The report so far: the sources' totals and warnings; the commit adds what it did.
    var report: WarmReport
    /// The record of the index the commit published, saved with the run's last write to the records.
    var committedIndex: PublishedIndex?
    private let started: TimeInterval
    private let logFailure: Error?
    private let stopping: Task<Void, Never>?
    private let confirmations: Task<Void, Never>
    private let reportLines: Task<Result<URL, Error>, Never>?

    init(pipeline: WarmPipeline, session: WarmSession, sources: SourceWindow.Outcome, started: TimeInterval) async {
        self.pipeline = pipeline
        self.session = session
        self.started = started
        logFailure = sources.logFailure
        report = WarmReport(manifest: pipeline.plan.manifestURL.path, output: pipeline.plan.output.path, status: .ok,
                            seconds: 0, totals: sources.totals, sources: [], warnings: sources.warnings)
        if let fetcher = session.fetcher {
            try? await fetcher.shutdown()
        }
        // The imaging processes exit (and are waited for) while the bundle is committed.
        stopping = session.processes.map { processes in Task { await BlockingWork.run { processes.shutdown() } } }
        // Confirmations kept in memory go to the records while the bundle is committed (another
        // file); a failure only loses when originals were last confirmed.
        let records = session.records
        confirmations = Task { await BlockingWork.run { _ = try? records.flush() } }
        // So are the report's lines, sorted, into a file beside the report (the report file gets
        // its head once the commit is done).
        let log = session.log
        reportLines = pipeline.options.reportURL.map { url in
            Task { await BlockingWork.run { Result { try log.writeLines(beside: url) } } }
        }
        await session.sweep.value
    }

    /// Writes the report (with `status`) and returns it, with why it could not be written, if
    /// it could not.
    mutating func finish(_ status: WarmReport.Status) async -> (report: WarmReport, problem: String?) {
        // While the report is written, once the confirmations are in: the record of the index
        // just committed (one that cannot be saved only costs the next run a comparison of the
        // rows), then the records' log into their file (nothing writes the records after that).
        let committed = committedIndex, records = session.records, bundlePath = session.bundlePath
        let confirmations = self.confirmations
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
        report.warnings = pipeline.plan.warnings.map(\.description) + report.warnings.sorted()
        let log = session.log, reportURL = pipeline.options.reportURL
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
            problem = "cannot write the report" + (reportURL.map { " to \($0.path)" } ?? "")
                + ": \(PlainReason.of(error))"
        }
        // The run's failures, for the lines said about them, whether the report was written or not.
        report.sources = (try? await BlockingWork.run { try log.failures() }) ?? []
        await checkpoint.value
        return (report, problem)
    }

    /// The run's failure, with its report and any problem writing that report.
    mutating func failure(_ kind: WarmError.Kind, _ message: String,
                          status: WarmReport.Status = .failed) async -> WarmError {
        let (report, problem) = await finish(status)
        var error = WarmError(kind, message, report: report)
        error.reportProblem = problem
        return error
    }

    /// Stops the run on a full disk: removes what it wrote, then says so in one line (which
    /// disk, roughly what the run needs there, what is free once its files are gone).
    mutating func outOfSpace() async -> WarmError {
        let plan = pipeline.plan, writer = session.writer, space = session.space
        let cachePath = session.cacheDirectory.standardizedFileURL.path
        let full = DiskSpace.fullest(of: [session.bundlePath, cachePath]) ?? session.bundlePath
        let attempted = max(1, space.attempted)
        let needed = (space.downloadedBytes + writer.bytesWritten) / attempted * plan.sources.count
        let outOfInodes = DiskSpace.isOutOfInodes(at: full)
        await BlockingWork.run { writer.abandon() }
        let message = "out of disk space: "
            + DiskSpace.shortage(at: full, needed: Int64(needed), outOfInodes: outOfInodes)
            + "; free some space there, or put the bundle (-o) or the cache (--cache-dir) on another disk, "
            + "then run again; \(plan.output.path) is unchanged and this run's files were removed"
        return await failure(.outOfSpace, message)
    }
}
