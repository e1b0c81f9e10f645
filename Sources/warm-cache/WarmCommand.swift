import ArgumentParser
import Foundation
import WarmCacheBuilder

/// `warm-cache warm manifest.yml`: the main job.
struct WarmCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "warm",
        abstract: "Fetch, resize and encode every image in the manifest into the bundle (the default command).",
        discussion: """
            Sources are fetched in parallel and encoded on every core. A source that fails does not \
            stop the others: by default the bundle is written with the sources that succeeded and the \
            exit code is 3; with --strict nothing is written on any failure (exit 4) and the previous \
            bundle stays as it was. A run never leaves a half-written bundle behind.
            """)

    @OptionGroup var manifest: ManifestArgument

    @Option(name: .shortAndLong, help: "Write the bundle here instead of the manifest's 'output'.")
    var output: String?

    @Option(help: ArgumentHelp("Keep downloaded originals and render records here between runs.",
                               discussion: "Default: .build/warm-cache beside the manifest."),
            completion: .directory)
    var cacheDir: String?

    @Option(help: "Write a JSON report of every source and variant to this file.")
    var report: String?

    @Option(help: ArgumentHelp("Write a contact sheet of the bundle and this run's failures to this file.",
                               discussion: "An HTML page of every image; see `inspect --html`.",
                               valueName: "file.html"))
    var html: String?

    @Flag(help: "Write nothing if any source fails.")
    var strict = false

    @Flag(help: "Use only cached originals; never touch the network.")
    var offline = false

    @Option(help: ArgumentHelp("Use cached originals younger than this without revalidating them.",
                               valueName: "duration: 90s, 10m, 12h, 7d"))
    var maxAge: String?

    @Option(name: .long, help: "Downloads in flight at once (overrides fetch.concurrency).")
    var concurrency: Int?

    @Option(name: .shortAndLong, help: "Sources encoded at once (default: one per core).")
    var jobs: Int?

    @OptionGroup var shard: ShardOption

    @OptionGroup var logging: LoggingOptions

    func validate() throws {
        if let maxAge, DurationText.seconds(maxAge) == nil {
            throw ValidationError("--max-age '\(maxAge)' is not a duration; write e.g. 90s, 10m, 12h or 7d")
        }
        if let concurrency, concurrency < 1 { throw ValidationError("--concurrency must be at least 1") }
        if let jobs, jobs < 1 { throw ValidationError("--jobs must be at least 1") }
        if shard.shard != nil, output == nil {
            throw ValidationError("--shard writes a partial bundle: give it its own --output (for example "
                + "parts/Images-2.warmcache), then combine the parts with 'warm-cache merge'")
        }
        try ContactSheetOutput.validate(html)
    }

    func run() async throws {
        let shard = try self.shard.resolve()
        var plan = try manifest.load(quiet: logging.quiet)
        if let shard {
            plan = plan.restricted(to: shard)
        }
        let cwd = URL(fileURLWithPath: FileManager.default.currentDirectoryPath)
        if let output {
            plan.output = URL(fileURLWithPath: output, relativeTo: cwd).standardizedFileURL
        }
        let options = WarmOptions(
            cacheDirectory: cacheDir.map { URL(fileURLWithPath: $0, relativeTo: cwd).standardizedFileURL },
            strict: strict, offline: offline, maxAge: maxAge.flatMap(DurationText.seconds),
            imagingConcurrency: jobs, fetchConcurrency: concurrency,
            reportURL: report.map { URL(fileURLWithPath: $0, relativeTo: cwd).standardizedFileURL })
        let printer = ProgressPrinter(quiet: logging.quiet)
        let pipeline = WarmPipeline(plan: plan, options: options, logger: logging.makeLogger(),
                                    onProgress: { printer.update($0) })

        let result: WarmReport
        do {
            result = try await pipeline.run()
        } catch {
            if let partial = error.report {
                try writeContactSheet(partial, bundle: nil)
                printFailures(partial)
            }
            Console.error(error.message)
            switch error.kind {
            case .nothingWritten, .strictFailure: throw ExitCodes.nothingWritten
            case .locked: throw ExitCodes.locked
            case .engine, .fileSystem: throw ExitCode.failure
            }
        }
        if !logging.quiet {
            printSummary(result, output: plan.output)
        }
        try writeContactSheet(result, bundle: plan.output)
        printFailures(result)
        if result.status != .ok {
            throw ExitCodes.someSourcesFailed
        }
    }

    /// The contact sheet of the bundle written (none when the run wrote nothing) and the run's failures.
    private func writeContactSheet(_ value: WarmReport, bundle: URL?) throws {
        guard let html else { return }
        try ContactSheetOutput.write(ContactSheet(bundleURL: bundle, failures: value.failures.map(ContactSheet.Failure.init)),
                                     to: html, quiet: logging.quiet)
    }

    private func printSummary(_ report: WarmReport, output: URL) {
        let totals = report.totals
        let rate = report.seconds > 0 ? Double(totals.sources) / report.seconds : 0
        Console.line("Wrote \(relative(output)) in \(String(format: "%.1f", report.seconds)) s "
            + "(\(String(format: "%.1f", rate)) sources/s)")
        Console.line("  sources:  \(totals.sourcesOK) ok, \(totals.sourcesFailed) failed "
            + "(\(totals.fetched) fetched, \(totals.revalidated) not modified, \(totals.reusedFromCache) from cache)")
        Console.line("  variants: \(totals.variants) (\(totals.variantsEncoded) encoded, \(totals.variantsReused) reused)")
        Console.line("  bytes:    \(Console.bytes(totals.bytesDownloaded)) downloaded, \(Console.bytes(totals.bytesIn)) "
            + "of originals in, \(Console.bytes(totals.bytesOut)) of variants out")
        for warning in report.warnings {
            Console.warning(warning)
        }
    }

    private func printFailures(_ report: WarmReport) {
        let failures = report.failures
        guard !failures.isEmpty else { return }
        Console.error("\(report.totals.sourcesFailed) of \(report.totals.sources) sources failed:")
        for failure in failures {
            FileHandle.standardError.write(Data(
                "  \(failure.identifier): \(failure.error ?? "failed") (listed at \(failure.listedAt))\n".utf8))
        }
    }

    private func relative(_ url: URL) -> String {
        let cwd = FileManager.default.currentDirectoryPath + "/"
        return url.path.hasPrefix(cwd) ? String(url.path.dropFirst(cwd.count)) : url.path
    }
}

/// Durations on the command line: `90`, `90s`, `10m`, `12h`, `7d`.
enum DurationText {
    static func seconds(_ text: String) -> TimeInterval? {
        let units: [Character: Double] = ["s": 1, "m": 60, "h": 3600, "d": 86400]
        let trimmed = text.trimmingCharacters(in: .whitespaces).lowercased()
        guard let last = trimmed.last else { return nil }
        let (number, unit) = units[last].map { (trimmed.dropLast(), $0) } ?? (Substring(trimmed), 1)
        guard let value = Double(number), value >= 0, value.isFinite else { return nil }
        return value * unit
    }
}
