import Foundation
import WarmCacheBuilder

/// Shows a run's progress on standard error: a live line on a terminal, periodic plain lines
/// in CI (no TTY, or `CI=true`), nothing with `--quiet`.
///
/// The live line is redrawn (at most ten times a second) whenever a source finishes or bytes
/// arrive, so a long download visibly moves. Plain lines come from a timer: one every
/// ``lineInterval`` seconds between ``start()`` and ``stop()``, whatever the pipeline reports,
/// so a CI log shows the run is alive even while one large file downloads; none before the run
/// starts or after it ends.
final class ProgressPrinter: Sendable {
    enum Style: Sendable {
        case live, lines, none
    }

    let style: Style
    /// Seconds between plain lines.
    let lineInterval: Double
    private let state = Locked(State())
    private let queue = DispatchQueue(label: "warm-cache.progress")
    private let timer = Locked<DispatchSourceTimer?>(nil)

    private struct State {
        var latest: WarmProgress?
        var lastDrawn = -Double.infinity
        var started = ProcessInfo.processInfo.systemUptime
        var running = false
    }

    init(quiet: Bool, environment: [String: String] = ProcessInfo.processInfo.environment) {
        let ci = ["true", "1", "yes"].contains(environment["CI"]?.lowercased() ?? "")
        if quiet {
            style = .none
        } else if isatty(STDERR_FILENO) == 1 && !ci {
            style = .live
        } else {
            style = .lines
        }
        lineInterval = 5
    }

    /// Begins a run of `total` sources.
    func start(total: Int) {
        let started = ProcessInfo.processInfo.systemUptime
        state.withLock {
            $0.running = true
            $0.started = started
            $0.latest = WarmProgress(sourcesTotal: total, sourcesDone: 0, sourcesFailed: 0, variantsWritten: 0,
                                     bytesDownloaded: 0, elapsed: 0)
        }
        guard style == .lines else { return }
        let source = DispatchSource.makeTimerSource(queue: queue)
        source.schedule(deadline: .now() + lineInterval, repeating: lineInterval, leeway: .milliseconds(100))
        source.setEventHandler { [weak self] in self?.heartbeat() }
        timer.withLock { $0 = source }
        source.resume()
    }

    /// Ends the run: no more lines; the live line is finished with a line break.
    func stop() {
        timer.withLock {
            $0?.cancel()
            $0 = nil
        }
        let wasLive = state.withLock { state -> Bool in
            defer { state.running = false }
            return state.running && style == .live && state.lastDrawn > -Double.infinity
        }
        if wasLive {
            FileHandle.standardError.write(Data("\n".utf8))
        }
    }

    /// A new snapshot from the pipeline (any thread, often).
    func update(_ progress: WarmProgress) {
        guard style != .none else { return }
        let text: String? = state.withLock { state in
            guard state.running else { return nil }
            state.latest = progress
            guard style == .live, progress.elapsed - state.lastDrawn >= 0.1
                    || progress.sourcesDone == progress.sourcesTotal else { return nil }
            state.lastDrawn = progress.elapsed
            return Self.describe(progress)
        }
        if let text {
            FileHandle.standardError.write(Data("\r\u{1B}[K\(text)".utf8))
        }
    }

    private func heartbeat() {
        let text: String? = state.withLock { state in
            guard state.running, var progress = state.latest else { return nil }
            progress.elapsed = ProcessInfo.processInfo.systemUptime - state.started
            return Self.describe(progress)
        }
        if let text {
            FileHandle.standardError.write(Data("progress: \(text)\n".utf8))
        }
    }

    static func describe(_ progress: WarmProgress) -> String {
        var parts = ["\(progress.sourcesDone)/\(progress.sourcesTotal) sources"]
        if progress.sourcesFailed > 0 { parts[0] += " (\(progress.sourcesFailed) failed)" }
        parts.append("\(progress.variantsWritten) variants")
        parts.append("\(Console.bytes(progress.bytesDownloaded)) downloaded at \(Console.bytes(Int(progress.downloadRate)))/s")
        if let eta = progress.estimatedRemaining, progress.sourcesDone < progress.sourcesTotal {
            parts.append("ETA \(Int(eta.rounded(.up)))s")
        }
        parts.append("\(Int(progress.elapsed))s")
        return parts.joined(separator: " · ")
    }
}
