import Foundation
import WarmCacheBuilder

/// Shows a run's progress on standard error: a live line on a terminal, periodic plain lines
/// in CI (no TTY, or `CI=true`), nothing with `--quiet`.
///
/// Both come from a timer that starts with the run, so the first line appears ``firstLine``
/// seconds in, whatever the pipeline has reported by then (a run of large photos can take
/// minutes before its first source is done). The live line is then redrawn every
/// ``liveInterval`` seconds, and at most ten times a second as variants are encoded, sources
/// finish or bytes arrive; plain lines come every ``lineInterval`` seconds until ``stop()``,
/// none before the run starts or after it ends. Variants are counted as each is encoded; the
/// download rate is shown only while bytes are arriving (``WarmProgress/downloadPause``).
final class ProgressPrinter: Sendable {
    enum Style: Sendable {
        case live, lines, none
    }

    let style: Style
    /// Seconds from the start to the first line (either style).
    let firstLine: Double = 1
    /// Seconds between plain lines.
    let lineInterval: Double
    /// Seconds between redraws of the live line when nothing is reported.
    let liveInterval: Double = 1
    private let write: @Sendable (String) -> Void
    private let state = Locked(State())
    private let queue = DispatchQueue(label: "warm-cache.progress")
    private let timer = Locked<DispatchSourceTimer?>(nil)

    private struct State {
        var latest: WarmProgress?
        var lastDrawn = -Double.infinity
        var started = ProcessInfo.processInfo.systemUptime
        var running = false
    }

    convenience init(quiet: Bool, environment: [String: String] = ProcessInfo.processInfo.environment) {
        let ci = ["true", "1", "yes"].contains(environment["CI"]?.lowercased() ?? "")
        let style: Style = quiet ? .none : isatty(STDERR_FILENO) == 1 && !ci ? .live : .lines
        self.init(style: style) { FileHandle.standardError.write(Data($0.utf8)) }
    }

    /// A printer of `style` that hands its text to `write` (standard error by default).
    init(style: Style, lineInterval: Double = 5, write: @escaping @Sendable (String) -> Void) {
        self.style = style
        self.lineInterval = lineInterval
        self.write = write
    }

    /// Begins a run of `total` sources.
    func start(total: Int) {
        let started = ProcessInfo.processInfo.systemUptime
        state.withLock {
            $0.running = true
            $0.started = started
            $0.latest = WarmProgress(sourcesTotal: total)
        }
        guard style != .none else { return }
        let source = DispatchSource.makeTimerSource(queue: queue)
        source.schedule(deadline: .now() + firstLine, repeating: style == .live ? liveInterval : lineInterval,
                        leeway: .milliseconds(100))
        source.setEventHandler { [weak self] in self?.tick() }
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
            write("\n")
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
            write("\r\u{1B}[K\(text)")
        }
    }

    /// The timer: the latest snapshot, its clock moved to now (elapsed time, whether bytes are
    /// still arriving).
    private func tick() {
        let text: String? = state.withLock { state in
            guard state.running, var progress = state.latest else { return nil }
            progress.elapsed = ProcessInfo.processInfo.systemUptime - state.started
            state.lastDrawn = progress.elapsed
            return Self.describe(progress)
        }
        guard let text else { return }
        write(style == .live ? "\r\u{1B}[K\(text)" : "progress: \(text)\n")
    }

    static func describe(_ progress: WarmProgress) -> String {
        var parts = ["\(progress.sourcesDone)/\(progress.sourcesTotal) sources"]
        if progress.sourcesFailed > 0 { parts[0] += " (\(progress.sourcesFailed) failed)" }
        parts.append(CountText.of(progress.variantsWritten, "variant"))
        if progress.bytesDownloaded > 0 {
            let rate = progress.isDownloading ? " at \(Console.bytes(Int(progress.downloadRate)))/s" : ""
            parts.append("\(Console.bytes(progress.bytesDownloaded)) downloaded\(rate)")
        }
        if let eta = progress.estimatedRemaining, progress.sourcesDone < progress.sourcesTotal {
            parts.append("ETA \(Int(eta.rounded(.up)))s")
        }
        parts.append("\(Int(progress.elapsed))s")
        return parts.joined(separator: " · ")
    }
}
