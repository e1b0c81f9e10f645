import ArgumentParser
import Foundation
import Logging
import WarmCache
import WarmCacheBuilder

/// `--quiet`, for the commands that print a summary but log nothing (`plan`, `merge`, `verify`,
/// `pull`, `sign`): they offer no `--verbose`, which would change nothing there.
struct QuietOption: ParsableArguments {
    @Flag(name: .shortAndLong, help: "Print errors only (no summary).")
    var quiet = false
}

/// `--quiet` and `--verbose`, for `warm`, whose run logs its source and request decisions.
struct LoggingOptions: ParsableArguments {
    @Flag(name: .shortAndLong, help: "Print errors only (no progress, no summary).")
    var quiet = false

    @Flag(name: .shortAndLong, help: "Log every source and request decision (debug level).")
    var verbose = false

    var level: Logger.Level {
        verbose ? .debug : quiet ? .error : .warning
    }

    /// A logger writing to standard error at the chosen level.
    func makeLogger(label: String = "warm-cache") -> Logger {
        let level = self.level
        var logger = Logger(label: label) { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = level
            return handler
        }
        logger.logLevel = level
        return logger
    }
}

/// Prints errors the way compilers do, so editors and CI logs pick them up.
enum Console {
    /// With `--json`: the error lines said so far, and whether JSON went to standard output, so
    /// that a command failing with `--json` prints one `{"error": …}` object whatever failed.
    private struct JSONErrors {
        var enabled = false
        var lines: [String] = []
        /// An invalid manifest's errors, each on its own (the error object's `problems`).
        var problems: [ErrorJSON.Problem] = []
        var printed = false
    }

    private static let jsonErrors = Locked(JSONErrors())

    static func error(_ message: String) {
        FileHandle.standardError.write(Data("error: \(message)\n".utf8))
        jsonErrors.withLock { $0.lines.append(message) }
    }

    /// An invalid manifest's diagnostics, one compiler-style line each (errors with their notes);
    /// with `--json`, the error object lists them under `problems`.
    static func manifestErrors(_ error: ManifestError) {
        FileHandle.standardError.write(Data("\(error.description)\n".utf8))
        jsonErrors.withLock { $0.problems += ErrorJSON.Problem.list(error) }
    }

    /// Called first when the command line asks for JSON.
    static func collectErrorsForJSON() {
        jsonErrors.withLock { $0.enabled = true }
    }

    /// A command that asked for JSON failed (exit `status`): prints its `{"error": …}` object,
    /// made of the errors it said (else `message`), unless it printed JSON already.
    static func jsonFailure(status: Int32, message: String) {
        let said = jsonErrors.withLock { state -> (lines: [String], problems: [ErrorJSON.Problem])? in
            guard state.enabled, !state.printed, status != 0 else { return nil }
            return (state.lines, state.problems)
        }
        guard let said else { return }
        let text = said.lines.isEmpty ? message : said.lines.joined(separator: "; ")
        try? json(ErrorJSON(error: text.isEmpty ? "failed (exit \(status))" : text,
                            problems: said.problems.isEmpty ? nil : said.problems))
    }

    static func warning(_ message: String) {
        FileHandle.standardError.write(Data("warning: \(message)\n".utf8))
    }

    /// A command's failure: one `error:` line, or with `--json` a JSON object `{"error": "..."}` on
    /// standard output, so a script reading JSON always gets JSON.
    static func failure(_ message: String, json: Bool) throws {
        if json {
            try Self.json(["error": message])
        } else {
            error(message)
        }
    }

    static func line(_ text: String = "") {
        print(text)
    }

    /// Pretty, key-sorted JSON on standard output.
    static func json<T: Encodable>(_ value: T) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .iso8601
        let data = try encoder.encode(value)
        jsonErrors.withLock { $0.printed = true }
        FileHandle.standardOutput.write(data)
        FileHandle.standardOutput.write(Data("\n".utf8))
    }

    /// What is wrong with a bundle a command reads, in plain words with what to do: a damaged
    /// index is said as such, without SQLite's own message or the query it failed on.
    static func bundleProblem(_ error: Error) -> String {
        guard let error = error as? CacheBundleError, case .corruptIndex = error.kind else { return "\(PlainReason.of(error))" }
        return "\(error.bundleURL.appendingPathComponent(BundleFormat.indexFileName).path) is damaged: it cannot be read "
            + "as a WarmCache index; bake the bundle again with `warm-cache warm` (it writes a new index), or copy "
            + "index.sqlite again from where the bundle was published"
    }

    /// `0 B`, `812 B`, `14.2 KB`, `3.1 MB` (``ByteCountText``: decimal units, as file managers show them).
    static func bytes(_ count: some BinaryInteger) -> String {
        ByteCountText.format(count)
    }
}
