import Foundation

/// A snapshot of a run in progress, delivered as variants are encoded, as sources finish and as
/// downloaded bytes arrive.
public struct WarmProgress: Sendable {
    public var sourcesTotal: Int
    public var sourcesDone: Int
    public var sourcesFailed: Int
    /// Variants encoded or reused so far: counted as each is encoded, not when its source is done.
    public var variantsWritten: Int
    /// Bytes received so far, counted as they arrive (failed attempts included).
    public var bytesDownloaded: Int
    public var elapsed: TimeInterval
    /// When the first and the last downloaded bytes arrived (seconds into the run), once some have.
    public var downloadStarted: TimeInterval?
    public var lastDownload: TimeInterval?

    package init(sourcesTotal: Int, sourcesDone: Int = 0, sourcesFailed: Int = 0, variantsWritten: Int = 0,
                 bytesDownloaded: Int = 0, elapsed: TimeInterval = 0) {
        self.sourcesTotal = sourcesTotal
        self.sourcesDone = sourcesDone
        self.sourcesFailed = sourcesFailed
        self.variantsWritten = variantsWritten
        self.bytesDownloaded = bytesDownloaded
        self.elapsed = elapsed
    }

    /// Seconds without a downloaded byte after which downloading counts as over.
    public static let downloadPause: TimeInterval = 3

    /// Whether bytes are still arriving at `elapsed`: some came within ``downloadPause``.
    public var isDownloading: Bool {
        lastDownload.map { elapsed - $0 < Self.downloadPause } ?? false
    }

    /// Bytes downloaded per second while downloads ran (from the first byte to the last, so the
    /// rate does not sink once they are over).
    public var downloadRate: Double {
        guard let downloadStarted, let lastDownload else { return 0 }
        return Double(bytesDownloaded) / max(lastDownload - downloadStarted, 0.1)
    }

    /// Estimated seconds left, from the pace so far; `nil` until a source has finished.
    public var estimatedRemaining: TimeInterval? {
        guard sourcesDone > 0, elapsed > 0 else { return nil }
        return elapsed / Double(sourcesDone) * Double(sourcesTotal - sourcesDone)
    }
}

/// Counts encoded variants, finished sources and downloaded bytes and hands snapshots to the
/// observer. Thread-safe.
final class ProgressTracker: Sendable {
    private struct State {
        var progress: WarmProgress
        /// Per source being imaged, the variants counted as they were encoded.
        var encoded: [String: Int] = [:]
    }

    private let state: Locked<State>
    private let started = ProcessInfo.processInfo.systemUptime
    private let observer: (@Sendable (WarmProgress) -> Void)?

    init(total: Int, observer: (@Sendable (WarmProgress) -> Void)?) {
        state = Locked(State(progress: WarmProgress(sourcesTotal: total)))
        self.observer = observer
    }

    /// One variant of `source` encoded (its source still being imaged).
    func variantEncoded(by source: String) {
        guard let observer else { return }
        observer(update { state in
            state.encoded[source, default: 0] += 1
            state.progress.variantsWritten += 1
        })
    }

    /// A source done: its variants replace those counted while it was imaged (a source that
    /// failed after some were encoded, or was imaged twice, counts what it wrote).
    func finished(_ report: SourceReport) {
        let snapshot = update { state in
            state.progress.sourcesDone += 1
            if report.status == .failed { state.progress.sourcesFailed += 1 }
            let counted = state.encoded.removeValue(forKey: report.identifier) ?? 0
            state.progress.variantsWritten += report.variants.count - counted
        }
        observer?(snapshot)
    }

    /// Called by the fetcher for every body chunk.
    func downloaded(_ bytes: Int) {
        guard let observer else { return }
        observer(update { state in
            state.progress.bytesDownloaded += bytes
            state.progress.downloadStarted = state.progress.downloadStarted ?? state.progress.elapsed
            state.progress.lastDownload = state.progress.elapsed
        })
    }

    /// The snapshot after `change`, timed now.
    private func update(_ change: (inout State) -> Void) -> WarmProgress {
        let now = ProcessInfo.processInfo.systemUptime - started
        return state.withLock { state in
            state.progress.elapsed = now
            change(&state)
            return state.progress
        }
    }
}
