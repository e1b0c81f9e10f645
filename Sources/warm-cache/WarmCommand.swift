import ArgumentParser
import Foundation
import WarmCache
import WarmCacheBuilder
import WarmCacheImaging

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

    @Option(help: ArgumentHelp("Publish nothing (exit 7) if the bundle's files would take more than this.",
                               discussion: "Overrides the manifest's 'budget'.", valueName: "size: 25MB, 512KB"))
    var budget: String?

    @Flag(help: "Use only cached originals; never touch the network.")
    var offline = false

    @Option(help: ArgumentHelp("Use cached originals younger than this without revalidating them.",
                               valueName: "duration: 90s, 10m, 12h, 7d"))
    var maxAge: String?

    @Option(name: .long, help: "Downloads in flight at once (overrides fetch.concurrency).")
    var concurrency: Int?

    @Option(name: .shortAndLong, help: "Sources encoded at once, each in its own imaging process (default: one per core, plus one).")
    var jobs: Int?

    @Option(help: ArgumentHelp("The memory the warm and its imaging processes may hold together.",
                               discussion: "Fewer sources render at once, and fewer processes start, to stay within it; "
                                   + "a source that needs more renders alone. Default: 192MiB per core plus 64MiB, "
                                   + "at most a quarter of the machine's memory. Imaging processes only (not with --in-process).",
                               valueName: "size: 512MB, 2GiB"))
    var memoryLimit: String?

    @Flag(help: "Decode and encode in this process instead of in imaging processes (slower for small images).")
    var inProcess = false

    @OptionGroup var shard: ShardOption

    @OptionGroup var signing: SigningOptions

    @OptionGroup var logging: LoggingOptions

    func validate() throws {
        if let maxAge, ManifestDuration.seconds(from: maxAge).map({ $0 >= 0 }) != true {
            throw ValidationError("--max-age '\(maxAge)' is not a duration; write e.g. \(ManifestDuration.examples)")
        }
        if let output, let problem = OutputName.problem(with: output) {
            throw ValidationError("-o/--output \(problem)")
        }
        try OutputPaths.validateFileName(report, option: "--report", example: "report.json")
        if let budget, ManifestByteSize.bytes(from: budget) == nil {
            throw ValidationError("--budget '\(budget)' is not a size; write e.g. 25MB, 512KB, 1GiB or 0")
        }
        if let memoryLimit {
            guard let bytes = ManifestByteSize.bytes(from: memoryLimit) else {
                throw ValidationError("--memory-limit '\(memoryLimit)' is not a size; write e.g. 512MB or 2GiB")
            }
            if bytes < WarmOptions.minimumMemoryLimit {
                throw ValidationError("--memory-limit \(memoryLimit) is too small: the warm and one imaging process "
                    + "hold \(WarmOptions.minimumMemoryLimit >> 20)MiB before any image; give at least "
                    + "\(WarmOptions.minimumMemoryLimit >> 20)MiB")
            }
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
        // While the manifest is read. Rendering in imaging processes, this process renders nothing:
        // its threads (HTTP, tasks, blocking work) get malloc arenas of their own instead of
        // sharing two, whose locks cost a re-warm 4-11 % more CPU (docs/imaging.md).
        ImagingRuntime.startInBackground(inProcess ? ImagingRuntime.Settings()
                                                   : ImagingRuntime.Settings(mallocArenaLimit: nil))
        var plan = try manifest.load(command: "warm", quiet: logging.quiet)
        if let shard {
            plan = plan.restricted(to: shard)
        }
        let cwd = URL(fileURLWithPath: FileManager.default.currentDirectoryPath)
        if let output {
            plan.output = URL(fileURLWithPath: output, relativeTo: cwd).standardizedFileURL
        }
        var options = WarmOptions(
            cacheDirectory: cacheDir.map { URL(fileURLWithPath: $0, relativeTo: cwd).standardizedFileURL },
            strict: strict, offline: offline, maxAge: maxAge.flatMap { ManifestDuration.seconds(from: $0) },
            imagingConcurrency: jobs, fetchConcurrency: concurrency,
            reportURL: report.map { URL(fileURLWithPath: $0, relativeTo: cwd).standardizedFileURL },
            imagingProcessCommand: inProcess ? nil : ImagingWorkerCommand.command)
        options.budget = budget.flatMap(ManifestByteSize.bytes(from:))
        options.memoryLimit = memoryLimit.flatMap(ManifestByteSize.bytes(from:))
        // Every path the run writes, before any download.
        try OutputPaths.checkBundle(plan.output.path)
        try OutputPaths.checkFolder(options.resolvedCacheDirectory(for: plan).path, option: "--cache-dir")
        try checkReportWritable()
        if let html { try OutputPaths.checkFile(html, option: "--html") }
        try signing.checkBeforeWriting(plan.output, partial: shard != nil)
        // The new index is signed before it is published: a signing that fails publishes nothing.
        let publishing = signing.publishingSigner(for: plan.output, partial: shard != nil)
        if let publishing {
            options.beforePublishing = { @Sendable index in try publishing.prepare(index) }
        }
        // Whether there was a bundle to compare with: a new one is "created", never "unchanged".
        let existed = FileManager.default.fileExists(
            atPath: plan.output.appendingPathComponent(BundleFormat.indexFileName).path)
        let printer = ProgressPrinter(quiet: logging.quiet)
        let pipeline = WarmPipeline(plan: plan, options: options, logger: logging.makeLogger(),
                                    onProgress: { printer.update($0) })

        let result: WarmReport
        var reportProblem: String?
        printer.start(total: plan.sources.count)
        let interruption = Interruption()
        defer { interruption.end() }
        do {
            defer { printer.stop() }
            result = try await interruption.run { try await pipeline.run() }
        } catch let error as WarmError where error.kind == .reportNotWritten && error.report != nil {
            // Published; only the report is missing: the run's own lines and exit code stand.
            result = error.report!
            reportProblem = error.message
        } catch let error as WarmError {
            publishing?.discard()
            // The run's own failure first (a full disk is one line: its sources' failures are its
            // consequences; the error's own line says how many failed: no second summary line),
            // then what could not be written about it.
            if let partial = error.report, error.kind != .outOfSpace, error.kind != .interrupted {
                printFailures(partial, withCount: false)
            }
            Console.error(error.message)
            if let problem = error.reportProblem { Console.error(problem) }
            if let partial = error.report { _ = writeContactSheet(partial, bundle: nil, whyNoBundle: error.message) }
            switch error.kind {
            case .nothingWritten, .strictFailure: throw ExitCodes.nothingWritten
            case .overBudget: throw ExitCodes.overBudget
            case .locked: throw ExitCodes.locked
            case .interrupted: throw ExitCode(interruption.exitStatus)
            case .engine, .fileSystem, .outOfSpace, .reportNotWritten: throw ExitCode.failure
            }
        }
        if !logging.quiet {
            printSummary(result, output: plan.output, existed: existed, manifestWarnings: plan.warnings.count)
        }
        if let publishing, publishing.hasPrepared {
            try publishing.finish(bundle: plan.output, quiet: logging.quiet)
        } else {
            // Nothing new was published: the index in place is signed, or its signature kept.
            try signing.signWrittenBundle(plan.output, partial: shard != nil, quiet: logging.quiet)
        }
        printFailures(result)
        if let reportProblem { Console.error(reportProblem) }
        let sheetWritten = writeContactSheet(result, bundle: plan.output)
        // A page or report that could not be written never hides the run's own exit code.
        if result.status != .ok {
            throw ExitCodes.someSourcesFailed
        }
        if reportProblem != nil || !sheetWritten {
            throw ExitCode.failure
        }
    }

    /// Fails before any work (exit 1) if the report cannot be written, so a run never publishes a
    /// bundle and then fails on its report.
    private func checkReportWritable() throws {
        guard let report else { return }
        try OutputPaths.checkFile(report, option: "--report")
    }

    /// The contact sheet of the bundle written (none when the run wrote nothing) and the run's
    /// failures, and with no bundle, why; whether it was written (a failure is said in one line).
    private func writeContactSheet(_ value: WarmReport, bundle: URL?, whyNoBundle: String? = nil) -> Bool {
        guard let html else { return true }
        do {
            try ContactSheetOutput.write(ContactSheet(bundleURL: bundle, failures: value.failures.map(ContactSheet.Failure.init),
                                                      whyNoBundle: whyNoBundle),
                                         to: html, quiet: logging.quiet)
            return true
        } catch {
            return false
        }
    }

    /// - Parameter existed: whether the bundle was there before the run (else it was created).
    private func printSummary(_ report: WarmReport, output: URL, existed: Bool, manifestWarnings: Int) {
        let totals = report.totals
        let rate = report.seconds > 0 ? Double(totals.sources) / report.seconds : 0
        let verb = !existed ? "Created \(relative(output))"
            : report.unchanged == true ? "Checked \(relative(output)), unchanged," : "Wrote \(relative(output))"
        Console.line("\(verb) in \(String(format: "%.1f", report.seconds)) s "
            + "(\(String(format: "%.1f", rate)) sources/s)")
        Console.line("  sources:  \(totals.sourcesOK) ok, \(totals.sourcesFailed) failed "
            + "(\(totals.fetched) fetched, \(totals.revalidated) not modified, \(totals.reusedFromCache) from cache)")
        Console.line("  variants: \(totals.variants) (\(totals.variantsEncoded) encoded, \(totals.variantsReused) reused)")
        Console.line("  bytes:    \(Console.bytes(totals.bytesDownloaded)) downloaded, \(Console.bytes(totals.bytesIn)) "
            + "of originals in, \(Console.bytes(totals.bytesOut)) of variants out (a file several variants share counted "
            + "for each)")
        if let payload = report.payload {
            // The budget covers the index too: said with enough precision to tell over from equal.
            let index = ObjectStore.fileSize(output.appendingPathComponent(BundleFormat.indexFileName)) ?? 0
            let (size, limit) = BudgetExceeded.distinct(payload.bytes + index, report.budget ?? 0)
            let budget = report.budget.map { _ in " of a \(limit) budget" } ?? ""
            Console.line("  bundle:   \(payload.summary), each file once, + index \(Console.bytes(index)) = \(size)\(budget)")
            let presets = payload.byPreset.map { "\($0.name) \(Console.bytes($0.bytes))" }
            if !presets.isEmpty { Console.line("            by preset: " + presets.joined(separator: ", ")) }
        }
        // The manifest's warnings (listed first) were printed when it was loaded; these are the sources' own.
        for warning in report.warnings.dropFirst(manifestWarnings) {
            Console.warning(warning)
        }
    }

    private func printFailures(_ report: WarmReport, withCount: Bool = true) {
        let failures = report.failures
        guard !failures.isEmpty else { return }
        // One line per failure: where (the URL or file, then the manifest line), why and what to do.
        for source in failures {
            Console.error("\(source.location): \(source.failure?.message ?? "failed") (listed at \(source.listedAt))")
        }
        if withCount {
            Console.error("\(failures.count) of \(CountText.of(report.totals.sources, "source")) failed")
        }
    }

    private func relative(_ url: URL) -> String {
        let cwd = FileManager.default.currentDirectoryPath + "/"
        return url.path.hasPrefix(cwd) ? String(url.path.dropFirst(cwd.count)) : url.path
    }
}
