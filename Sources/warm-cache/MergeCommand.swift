import ArgumentParser
import Foundation
import WarmCacheBuilder
import WarmCache

/// `warm-cache merge -o Images.warmcache PART...`: combines the partial bundles of a sharded warm.
struct MergeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "merge",
        abstract: "Combine the partial bundles of 'warm --shard' runs into one bundle.",
        discussion: """
            Blobs are deduplicated by hash and hard-linked from the parts (copied across file \
            systems); index rows are unioned. The parts must come from one manifest and one \
            warm-cache version, and every shard of the matrix must be given once. The merged bundle \
            is exactly the one an unsharded run writes, and it is published atomically: on any \
            error the output keeps its previous bundle.
            """)

    @Option(name: .shortAndLong, help: "The merged bundle to write (…/Name.warmcache).", completion: .directory)
    var output: String

    @Argument(help: "The partial bundles, one per shard.", completion: .directory)
    var parts: [String]

    @Option(help: "Also merge the shards' --report files (see --reports) into this file.")
    var report: String?

    @Option(parsing: .upToNextOption, help: "The shards' --report files to merge into --report.")
    var reports: [String] = []

    @Flag(help: "Merge the shards given even if some shards of the matrix are missing.")
    var allowMissingShards = false

    @OptionGroup var signing: SigningOptions

    @OptionGroup var logging: QuietOption

    func validate() throws {
        if parts.isEmpty { throw ValidationError("give the partial bundles to merge") }
        if report != nil, reports.isEmpty { throw ValidationError("--report needs the shards' reports: --reports R1 R2 …") }
        if report == nil, !reports.isEmpty { throw ValidationError("--reports needs --report FILE to write the merged report to") }
        try OutputPaths.validateFileName(report, option: "--report", example: "report.json")
    }

    func run() throws {
        let cwd = URL(fileURLWithPath: FileManager.default.currentDirectoryPath)
        func url(_ path: String) -> URL { URL(fileURLWithPath: path, relativeTo: cwd).standardizedFileURL }
        let outputURL = url(output)
        try OutputPaths.checkBundle(outputURL.path)
        if let report { try OutputPaths.checkFile(report, option: "--report") }
        try signing.checkBeforeWriting(outputURL, partial: false)
        let started = ProcessInfo.processInfo.systemUptime
        var merger = BundleMerger(parts: parts.map(url), output: outputURL, allowMissingShards: allowMissingShards)
        let interruption = Interruption()
        defer { interruption.end() }
        merger.isCancelled = { interruption.received != nil }
        // The merged index is signed before it is published: a signing that fails publishes nothing.
        let publishing = signing.publishingSigner(for: outputURL, partial: false)
        if let publishing {
            merger.beforePublishing = { @Sendable index in try publishing.prepare(index) }
        }
        let summary: BundleMerger.Summary
        do throws(BundleMergeError) {
            summary = try merger.merge()
            if let report {
                let data = try ReportMerger.merge(reports.map(url), output: outputURL)
                do {
                    try data.write(to: url(report), options: .atomic)
                } catch {
                    throw BundleMergeError(.fileSystem, "cannot write the report to \(report): \(PlainReason.of(error))")
                }
            }
        } catch {
            publishing?.discard()
            Console.error(error.message)
            switch error.kind {
            case .locked: throw ExitCodes.locked
            case .incompatibleParts, .unreadablePart, .fileSystem: throw ExitCode.failure
            case .interrupted: throw ExitCode(interruption.exitStatus)
            }
        }
        if !logging.quiet {
            Console.line("Merged \(summary.parts) part\(summary.parts == 1 ? "" : "s") into \(output) in "
                + String(format: "%.1f", ProcessInfo.processInfo.systemUptime - started) + " s: "
                + "\(CountText.of(summary.sources, "source")), \(CountText.of(summary.variants, "variant")), "
                + "\(CountText.of(summary.blobs, "blob")) "
                + "(\(summary.blobsAdded) added, \(summary.blobsRemoved) removed)")
        }
        if let publishing, publishing.hasPrepared {
            try publishing.finish(bundle: outputURL, quiet: logging.quiet)
        } else {
            try signing.signWrittenBundle(outputURL, partial: false, quiet: logging.quiet)
        }
    }
}
