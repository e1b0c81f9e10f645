import ArgumentParser
import Foundation
import WarmCache
import WarmCacheBuilder

/// `warm-cache-bench merge`: the cost of `warm-cache merge` at catalogue scale, without libvips.
///
/// It writes N sources x V variants as K shard parts, with tiny distinct blobs, through the
/// product's own ``BundleWriter`` (the staging index and publication a sharded warm uses), keeps
/// them in `--work-dir` for later runs, then times the release `warm-cache merge` in a child
/// process, so the peak RSS printed is the merge's own.
///
/// `swift run -c release warm-cache-bench merge --sources 100000 --variants 6 --parts 4`
struct MergeBenchmark: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "merge",
        abstract: "Merge K generated shard parts of N sources x V variants; seconds and peak RSS.")

    @Option(help: "Sources in the whole manifest.")
    var sources: Int = 100_000

    @Option(help: "Variants per source (distinct keys, one tiny blob each).")
    var variants: Int = 6

    @Option(help: "Shard parts to write and merge.")
    var parts: Int = 4

    @Option(help: "Merges to time, each into a fresh output.")
    var runs: Int = 1

    @Option(help: "Where the parts are kept between runs (reused when complete).")
    var workDir: String = FileManager.default.temporaryDirectory.appendingPathComponent("warm-cache-bench-merge").path

    @Option(help: "The warm-cache executable to measure (default: the one built beside this benchmark).")
    var tool: String?

    func validate() throws {
        guard sources > 0, variants > 0, (1...Shard.maximumCount).contains(parts), runs > 0 else {
            throw ValidationError("--sources, --variants and --runs must be positive; --parts 1...\(Shard.maximumCount)")
        }
    }

    func run() throws {
        let tool = try self.tool.map { URL(fileURLWithPath: $0) } ?? WarmBenchmark.siblingExecutable("warm-cache")
        let folder = URL(fileURLWithPath: workDir).appendingPathComponent("\(sources)x\(variants)-\(parts)")
        print("merge benchmark: \(sources) sources x \(variants) variants in \(parts) parts, "
            + "\(ProcessInfo.processInfo.activeProcessorCount) cores, \(tool.path)")
        let partURLs = try Self.parts(in: folder, sources: sources, variants: variants, count: parts)

        let output = folder.appendingPathComponent("Merged.warmcache")
        for attempt in 1...runs {
            try? FileManager.default.removeItem(at: output)
            let before = Measurement.loadAverage()
            let outcome = try WarmBenchmark.runTool(tool, ["merge", "-o", output.path] + partURLs.map(\.path))
            print("merge run \(attempt): \(Measurement.format(outcome.seconds, 2)) s "
                + "(CPU \(Measurement.format(outcome.cpuSeconds, 1)) s)  peak RSS \(Measurement.format(outcome.peakRSSMiB, 0)) MiB  "
                + "(\(before) before, \(Measurement.loadAverage()) after)")
        }
        let again = try WarmBenchmark.runTool(tool, ["merge", "-o", output.path] + partURLs.map(\.path))
        print("merge again into the same output (every blob already there): "
            + "\(Measurement.format(again.seconds, 2)) s (CPU \(Measurement.format(again.cpuSeconds, 1)) s)  peak RSS \(Measurement.format(again.peakRSSMiB, 0)) MiB")
        try? FileManager.default.removeItem(at: output)
    }

    /// The parts in `folder`, written unless a complete set is there.
    static func parts(in folder: URL, sources: Int, variants: Int, count: Int) throws -> [URL] {
        let urls = (1...count).map { folder.appendingPathComponent("part-\($0).warmcache") }
        let complete = folder.appendingPathComponent("complete")
        if FileManager.default.fileExists(atPath: complete.path) {
            print("reusing the parts in \(folder.path)")
            return urls
        }
        try? FileManager.default.removeItem(at: folder)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        print("writing \(count) parts in \(folder.path) (once; later runs reuse them)...")
        let errors = Locked<[Error]>([])
        let seconds = Measurement.seconds {
            DispatchQueue.concurrentPerform(iterations: count) { offset in
                do {
                    try writePart(urls[offset], shard: try Shard(index: offset + 1, count: count), sources: sources,
                                  variants: variants)
                } catch {
                    errors.withLock { $0.append(error) }
                }
            }
        }
        if let error = errors.withLock({ $0.first }) { throw error }
        print("written in \(Measurement.format(seconds, 1)) s")
        try Data().write(to: complete)
        return urls
    }

    /// One shard's part: its share of `s0…s(N-1)`, each with `variants` variants and a tiny blob
    /// per variant, committed as `warm --shard` commits.
    private static func writePart(_ url: URL, shard: Shard, sources: Int, variants: Int) throws {
        let writer = BundleWriter(bundleURL: url)
        try writer.prepare()
        let formats: [ImageFormat] = [.webp, .jpeg]
        for index in 0..<sources {
            let identifier = SourceIdentifier("https://cdn.example.com/catalogue/\(index).jpg")
            guard shard.contains(identifier) else { continue }
            let source = BundleContents.Source(
                identifier: identifier, contentSHA256: ContentHash.sha256(Data(identifier.rawValue.utf8)),
                format: "jpeg", pixelSize: PixelSize(width: 1600, height: 1200), byteCount: 250_000,
                placeholder: ImagePlaceholder(blurHash: "LEHV6nWB2yk8"))
            var rows: [BundleContents.Variant] = []
            for variant in 0..<variants {
                let width = 64 << (variant / formats.count)
                let spec = VariantSpec(width: width, height: nil, format: formats[variant % formats.count])
                let key = VariantKey(source: identifier, spec: spec)
                let blob = try writer.storeBlob(Data(key.rawValue.utf8), format: spec.format)
                rows.append(BundleContents.Variant(
                    key: key, pixelSize: PixelSize(width: width, height: width * 3 / 4), byteCount: blob.byteCount,
                    blobSHA256: blob.sha256, hasAlpha: false, presets: ["w\(width)"]))
            }
            try writer.add(source, variants: rows)
        }
        try writer.commit(manifestFingerprint: fingerprint, shard: shard)
    }

    /// Any fixed fingerprint: the parts only need to agree.
    private static let fingerprint = String(repeating: "5e", count: 32)
}
