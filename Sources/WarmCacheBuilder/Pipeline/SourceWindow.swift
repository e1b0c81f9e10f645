import Foundation
import WarmCache

/// The warm's middle step: every source of the plan goes through check, acquire, render and
/// store, a bounded number at a time.
///
/// Sources enter through a window: twice as many as can be fetched and hold an imaging slot at
/// once, so nothing waits for work, and memory holds only what is in flight (and the records of
/// the next two batches, read ahead). They enter and are completed half the window at a time,
/// or whatever is there when the last step was a moment ago (slow sources are not held back).
/// Fewer, larger steps cost a re-warm less (a quarter at a time: 5 % more of its time, 8 % more
/// CPU).
///
/// Each step lets in a batch of sources whose cache records (and earlier renders) were read ahead
/// on Dispatch threads while the others ran (two batches are read ahead; reading them as they
/// entered held a re-warm's loop up for most of its time), and hands the sources that finished to
/// another Dispatch thread to be completed (the records they owe written, their rows staged,
/// their report lines logged). A re-warm's source then needs no thread hop of its own (it
/// finishes faster than threads wake up). Completions run one after another, each beside the next
/// step; a step counts the sources the previous one completed.
struct SourceWindow {
    /// What the sources came to.
    struct Outcome {
        var totals = WarmReport.Totals()
        /// The sources' warnings, each prefixed with its source.
        var warnings: [String] = []
        /// Why a source's report line could not be logged, if one could not.
        var logFailure: Error?
    }

    /// What a source's entry into the window found in the cache: its original's record and, for
    /// that original, an earlier render to reuse.
    struct Checks: Sendable {
        var cached: OriginalAcquirer.Cached?
        var reusable: SourceRenderer.Rendered?
    }

    let sources: [PlannedSource]
    let session: WarmSession
    /// Sources in flight at most.
    let size: Int
    /// Acquires, renders and stores one source (``WarmPipeline``'s per-source step).
    let process: @Sendable (PlannedSource, Checks) async -> WarmPipeline.SourceOutcome

    func run() async -> Outcome {
        let session = self.session, process = self.process
        let acquirer = session.acquirer, renderer = session.renderer
        var outcome = Outcome()
        await withTaskGroup(of: WarmPipeline.SourceOutcome.self) { group in
            let end = sources.endIndex
            var next = sources.startIndex
            var inFlight = 0
            var finished: [WarmPipeline.SourceOutcome] = []
            var lastStep = ProcessInfo.processInfo.systemUptime
            let batch = max(1, size / 2)
            var ahead: [(sources: ArraySlice<PlannedSource>, checks: Task<[Checks], Never>)] = []
            let aheadBatches = 2
            var completing: Task<(reports: [SourceReport], logError: Error?), Never>?
            func counted(_ completion: Task<(reports: [SourceReport], logError: Error?), Never>?) async {
                guard let (reports, logError) = await completion?.value else { return }
                if let logError { outcome.logFailure = outcome.logFailure ?? logError }
                for source in reports {
                    session.tracker.finished(source)
                    outcome.totals.add(source)
                    outcome.warnings += source.warnings.map { "\(source.identifier): \($0)" }
                }
            }
            @Sendable func check(_ sources: ArraySlice<PlannedSource>) -> [Checks] {
                sources.map { source in
                    let cached = acquirer.check(source)
                    return Checks(cached: cached,
                                  reusable: cached?.sha256.flatMap { renderer.reusable(source, originalSHA256: $0) })
                }
            }
            func enter(_ sources: ArraySlice<PlannedSource>, _ checks: [Checks]) {
                for (source, checks) in zip(sources, checks) {
                    inFlight += 1
                    group.addTask { await process(source, checks) }
                }
            }
            func step() async {
                lastStep = ProcessInfo.processInfo.systemUptime
                let room = size - inFlight
                if let (sources, checks) = ahead.first {
                    if room > 0 {
                        ahead.removeFirst()
                        enter(sources, await checks.value)
                    }
                } else if room > 0, next < end {
                    // The first step fills the window; its records are read here.
                    let entering = sources[next..<min(next + room, end)]
                    next = entering.endIndex
                    let checks = await BlockingWork.run { check(entering) }
                    // Originals not in the cache are downloaded and rendered: their imaging
                    // processes start while the first ones download.
                    session.processes?.prestart(zip(entering, checks).count { $0.isRemote && $1.cached?.found == nil })
                    enter(entering, checks)
                }
                while ahead.count < aheadBatches, next < end {
                    let batchSources = sources[next..<min(next + batch, end)]
                    next = batchSources.endIndex
                    ahead.append((batchSources, Task { await BlockingWork.run { check(batchSources) } }))
                }
                await counted(completing)
                let done = finished
                finished.removeAll(keepingCapacity: true)
                completing = done.isEmpty ? nil : Task {
                    await BlockingWork.run {
                        let reports = WarmPipeline.complete(done, acquirer: acquirer, writer: session.writer,
                                                            space: session.space)
                        var logError: Error?
                        do { try session.log.append(contentsOf: reports) } catch { logError = error }
                        return (reports, logError)
                    }
                }
            }
            await step()
            repeat {
                while let finishedSource = await group.next() {
                    inFlight -= 1
                    finished.append(finishedSource)
                    if size - inFlight >= batch || ProcessInfo.processInfo.systemUptime - lastStep > 0.25 {
                        await step()
                    }
                }
                // Nothing in flight: the rest enter (or the last finished sources are completed).
                if !ahead.isEmpty || !finished.isEmpty { await step() }
            } while inFlight > 0
            await counted(completing)
        }
        return outcome
    }
}
