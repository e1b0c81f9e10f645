import Foundation
import WarmCacheBuilder
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Shows a run's progress on standard error: a live line on a terminal, periodic plain lines
/// in CI (no TTY, or `CI=true`), nothing with `--quiet`.
final class ProgressPrinter: Sendable {
    enum Style: Sendable {
        case live, lines, none
    }

    let style: Style
    private let lastPrint = Locked(0.0)
    private let interval: Double

    init(quiet: Bool, environment: [String: String] = ProcessInfo.processInfo.environment) {
        let ci = ["true", "1"].contains(environment["CI"]?.lowercased() ?? "")
        if quiet {
            style = .none
        } else if isatty(STDERR_FILENO) == 1 && !ci {
            style = .live
        } else {
            style = .lines
        }
        interval = style == .live ? 0.1 : 5
    }

    func update(_ progress: WarmProgress) {
        guard style != .none else { return }
        let finished = progress.sourcesDone == progress.sourcesTotal
        let shouldPrint = lastPrint.withLock { last in
            guard finished || progress.elapsed - last >= interval else { return false }
            last = progress.elapsed
            return true
        }
        guard shouldPrint else { return }
        let text = Self.describe(progress)
        switch style {
        case .live:
            FileHandle.standardError.write(Data("\r\u{1B}[K\(text)\(finished ? "\n" : "")".utf8))
        case .lines:
            FileHandle.standardError.write(Data("progress: \(text)\n".utf8))
        case .none:
            break
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
        return parts.joined(separator: " · ")
    }
}
