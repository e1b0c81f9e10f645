import ArgumentParser
import Foundation

/// The main job end to end: a folder of photos served over loopback HTTP, warmed by the real
/// `warm-cache` binary, against a naive baseline doing the same work file by file (`curl`, then
/// one `vipsthumbnail` per variant), as a build script without WarmCache would.
///
/// `swift run -c release warm-cache-bench warm --sources 200`
struct WarmBenchmark: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "warm",
        abstract: "Warm photos served over loopback HTTP; compare with curl + vipsthumbnail file by file.")

    @Option(help: "Folder searched recursively for .jpg/.jpeg/.png photos (served round-robin).")
    var images: String = "/usr/share/wallpapers"

    @Option(help: "How many sources (URLs) to warm; photos repeat under distinct URLs when there are fewer.")
    var sources: Int = 200

    @Option(help: "How many of those the naive baseline processes (0 skips it); rates are compared per source.")
    var baselineSources: Int = 100

    @Option(help: "Skip photos larger than this many bytes (0: no limit).")
    var maxPhotoBytes: Int = 4_000_000

    @Flag(help: "Also re-run the warm with nothing changed, then with --change-percent of the images replaced.")
    var rewarm = false

    @Option(help: "With --rewarm: the share of served images replaced before the third run.")
    var changePercent: Double = 1

    mutating func run() async throws {
        let photos = try ImagingBenchmark.photos(in: images, limit: 0)
            .filter { maxPhotoBytes == 0 || $0.size <= maxPhotoBytes }
        guard !photos.isEmpty else { throw ValidationError("no photos under \(images)") }
        let work = FileManager.default.temporaryDirectory.appendingPathComponent("warm-bench-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: work) }
        let served = work.appendingPathComponent("served/p")
        try FileManager.default.createDirectory(at: served, withIntermediateDirectories: true)
        var servedBytes = 0
        for index in 0..<sources {
            let photo = photos[index % photos.count]
            let name = String(format: "%05d", index) + "." + (photo.path as NSString).pathExtension.lowercased()
            try FileManager.default.createSymbolicLink(atPath: served.appendingPathComponent(name).path,
                                                       withDestinationPath: photo.path)
            servedBytes += photo.size
        }
        let server = try LoopbackFileServer(root: work.appendingPathComponent("served"))
        defer { server.stop() }
        let names = try FileManager.default.contentsOfDirectory(atPath: served.path).sorted()
        let urls = names.map { "http://127.0.0.1:\(server.port)/p/\($0)" }

        let manifest = work.appendingPathComponent("warm-cache.yml")
        try WarmBenchmarkManifest.yaml(urls: urls).write(to: manifest, atomically: true, encoding: .utf8)
        let variantCount = urls.count * WarmBenchmarkManifest.variantsPerSource

        print("warm benchmark: \(urls.count) sources (\(photos.count) distinct photos, "
            + "\(Measurement.format(Double(servedBytes) / 1e6)) MB), "
            + "\(WarmBenchmarkManifest.variantsPerSource) variants each "
            + "(\(WarmBenchmarkManifest.description)), \(ProcessInfo.processInfo.activeProcessorCount) cores")

        let tool = try Self.siblingExecutable("warm-cache")
        let cache = work.appendingPathComponent("cache").path
        let reportURL = work.appendingPathComponent("report.json")
        let arguments = ["warm", manifest.path, "--quiet", "--cache-dir", cache, "--report", reportURL.path]
        let coldRun = try Self.runTool(tool, arguments)
        let cold = coldRun.seconds
        let peak = coldRun.peakRSSMiB
        print("warm-cache:   \(Measurement.format(cold, 2)) s  "
            + "\(Measurement.format(Double(urls.count) / cold)) sources/s  "
            + "\(Measurement.format(Double(variantCount) / cold)) variants/s  "
            + "\(Measurement.format(Double(servedBytes) / 1e6 / cold)) MB/s downloaded  peak RSS \(Measurement.format(peak, 0)) MiB"
            + "  [\(try RunTotals(reportURL))]")

        if rewarm {
            let again = try Self.runTool(tool, arguments).seconds
            print("re-warm, nothing changed: \(Measurement.format(again, 2)) s "
                + "(\(Measurement.format(again / cold * 100)) % of cold)  [\(try RunTotals(reportURL))]")
            let changed = max(1, Int((Double(urls.count) * changePercent / 100).rounded()))
            for index in 0..<changed {
                // Spread over the list; a fresh copy of another photo gets a new mtime, so the
                // server's Last-Modified moves forward as a real origin's would.
                let name = names[index * names.count / changed]
                let target = served.appendingPathComponent(name)
                let replacement = photos[(index + 1 + names.firstIndex(of: name)!) % photos.count]
                try FileManager.default.removeItem(at: target)
                try FileManager.default.copyItem(atPath: replacement.path, toPath: target.path)
            }
            let partial = try Self.runTool(tool, arguments).seconds
            print("re-warm, \(changed) of \(urls.count) images replaced: \(Measurement.format(partial, 2)) s "
                + "(\(Measurement.format(partial / cold * 100)) % of cold)  [\(try RunTotals(reportURL))]")
        }

        guard baselineSources > 0 else { return }
        let baselineURLs = Array(urls.prefix(baselineSources))
        let baseline = try NaiveBaseline(directory: work.appendingPathComponent("baseline")).run(baselineURLs)
        let ourRate = Double(urls.count) / cold
        let baselineRate = Double(baselineURLs.count) / baseline
        print("naive:        \(Measurement.format(baseline, 2)) s for \(baselineURLs.count) sources  "
            + "\(Measurement.format(baselineRate)) sources/s  "
            + "\(Measurement.format(Double(baselineURLs.count * WarmBenchmarkManifest.variantsPerSource) / baseline)) variants/s "
            + "(curl, then vipsthumbnail per variant, one file at a time)")
        print("speed-up:     \(Measurement.format(ourRate / baselineRate, 2))x")
    }

    /// A product built beside this benchmark (same configuration).
    static func siblingExecutable(_ name: String) throws -> URL {
        let own = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
        let candidate = own.deletingLastPathComponent().appendingPathComponent(name)
        guard FileManager.default.isExecutableFile(atPath: candidate.path) else {
            throw ValidationError("\(candidate.path) not found: build it first (swift build -c release --product \(name))")
        }
        return candidate
    }

    /// Runs the tool (its output on this process's streams) and measures it; fails unless it exits 0.
    static func runTool(_ tool: URL, _ arguments: [String]) throws -> Subprocess.Outcome {
        let outcome = try Subprocess.measure(tool.path, arguments, output: .inherit)
        guard outcome.succeeded else {
            throw ValidationError("\(tool.lastPathComponent) \(arguments.joined(separator: " ")): \(outcome.summary)")
        }
        return outcome
    }
}

/// The counts a run's `--report` gives, for the benchmark's lines.
struct RunTotals: CustomStringConvertible {
    var fetched = 0, revalidated = 0, encoded = 0, reused = 0

    init(_ report: URL) throws {
        let object = try JSONSerialization.jsonObject(with: Data(contentsOf: report)) as? [String: Any]
        let totals = object?["totals"] as? [String: Any] ?? [:]
        fetched = totals["fetched"] as? Int ?? 0
        revalidated = totals["revalidated"] as? Int ?? 0
        encoded = totals["variantsEncoded"] as? Int ?? 0
        reused = totals["variantsReused"] as? Int ?? 0
    }

    var description: String {
        "\(fetched) fetched, \(revalidated) not modified, \(encoded) variants encoded, \(reused) reused"
    }
}
