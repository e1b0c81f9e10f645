import Foundation

/// A snapshot of a run in progress, delivered after each source finishes and as downloaded
/// bytes arrive.
public struct WarmProgress: Sendable {
    public var sourcesTotal: Int
    public var sourcesDone: Int
    public var sourcesFailed: Int
    public var variantsWritten: Int
    /// Bytes received so far, counted as they arrive (failed attempts included).
    public var bytesDownloaded: Int
    public var elapsed: TimeInterval

    package init(sourcesTotal: Int, sourcesDone: Int = 0, sourcesFailed: Int = 0, variantsWritten: Int = 0,
                 bytesDownloaded: Int = 0, elapsed: TimeInterval = 0) {
        self.sourcesTotal = sourcesTotal
        self.sourcesDone = sourcesDone
        self.sourcesFailed = sourcesFailed
        self.variantsWritten = variantsWritten
        self.bytesDownloaded = bytesDownloaded
        self.elapsed = elapsed
    }

    /// Bytes downloaded per second so far.
    public var downloadRate: Double {
        elapsed > 0 ? Double(bytesDownloaded) / elapsed : 0
    }

    /// Estimated seconds left, from the pace so far; `nil` until a source has finished.
    public var estimatedRemaining: TimeInterval? {
        guard sourcesDone > 0, elapsed > 0 else { return nil }
        return elapsed / Double(sourcesDone) * Double(sourcesTotal - sourcesDone)
    }
}

/// Counts finished sources and downloaded bytes and hands snapshots to the observer. Thread-safe.
final class ProgressTracker: Sendable {
    private let state: Locked<WarmProgress>
    private let started = ProcessInfo.processInfo.systemUptime
    private let observer: (@Sendable (WarmProgress) -> Void)?

    init(total: Int, observer: (@Sendable (WarmProgress) -> Void)?) {
        state = Locked(WarmProgress(sourcesTotal: total, sourcesDone: 0, sourcesFailed: 0, variantsWritten: 0,
                                    bytesDownloaded: 0, elapsed: 0))
        self.observer = observer
    }

    func finished(_ report: SourceReport) {
        let snapshot = state.withLock { progress in
            progress.sourcesDone += 1
            if report.status == .failed { progress.sourcesFailed += 1 }
            progress.variantsWritten += report.variants.count
            progress.elapsed = ProcessInfo.processInfo.systemUptime - started
            return progress
        }
        observer?(snapshot)
    }

    /// Called by the fetcher for every body chunk.
    func downloaded(_ bytes: Int) {
        guard let observer else { return }
        let snapshot = state.withLock { progress in
            progress.bytesDownloaded += bytes
            progress.elapsed = ProcessInfo.processInfo.systemUptime - started
            return progress
        }
        observer(snapshot)
    }
}
