import ArgumentParser
import Foundation

/// `warm-cache-bench shards`: how to size a CI matrix. On the small-image workload of `scale`
/// (same generated images, same loopback server, same manifest), it warms all N sources
/// - as one process with `--jobs K`, and
/// - as K processes at once, `--shard i/K --jobs 1` each (a matrix of K one-core runners squeezed
///   onto this machine), followed by `warm-cache merge`,
/// and prints both wall times, peak RSS, and whether the merged index is byte-identical to the
/// one-process index.
///
/// `swift run -c release warm-cache-bench shards --sources 2000 --shards 4`
struct ShardsBenchmark: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "shards",
        abstract: "Warm N small images as K shard processes (--jobs 1 each) + merge vs one process with K jobs.")

    @Option(help: "Sources to warm.")
    var sources: Int = 2_000

    @Option(help: "Shards (processes) and, for the one-process run, imaging jobs.")
    var shards: Int = 4

    @Option(help: "Rounds of both runs (alternating), each into fresh outputs and caches.")
    var runs: Int = 1

    @Option(help: "Where generated images are kept (shared with `scale`: the same images are reused).")
    var workDir: String = FileManager.default.temporaryDirectory.appendingPathComponent("warm-cache-bench-scale").path

    @Option(help: "Extra environment for the warm-cache children, e.g. VIPS_NOVECTOR=1 (repeatable).")
    var toolEnv: [String] = []

    @Option(help: "The warm-cache executable to measure (default: the one built beside this benchmark).")
    var tool: String?

    func validate() throws {
        guard sources > 0, shards > 0, runs > 0 else { throw ValidationError("--sources, --shards, --runs must be positive") }
    }

    func run() throws {
        let environment = try ScaleBenchmark.environment(toolEnv)
        let tool = try self.tool.map { URL(fileURLWithPath: $0) } ?? WarmBenchmark.siblingExecutable("warm-cache")
        let workload = try ScaleWorkload.generated(count: sources, workDir: workDir)
        print("shards benchmark: \(sources) \(workload.description); \(shards) shards; "
            + "\(ProcessInfo.processInfo.activeProcessorCount) cores; \(tool.path)")
        let server = try LoopbackFileServer(root: workload.directory)
        defer { server.stop() }

        let scratch = URL(fileURLWithPath: workDir).appendingPathComponent("shards-\(sources)")
        try? FileManager.default.removeItem(at: scratch)
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }
        let urlList = scratch.appendingPathComponent("urls.txt")
        try workload.names(sources).map { "http://127.0.0.1:\(server.port)/\($0)\n" }.joined()
            .write(to: urlList, atomically: true, encoding: .utf8)
        let manifest = scratch.appendingPathComponent("warm-cache.yml")
        try workload.manifest(urlsFile: urlList.path).write(to: manifest, atomically: true, encoding: .utf8)

        for round in 1...runs {
            let run = scratch.appendingPathComponent("round-\(round)")
            try FileManager.default.createDirectory(at: run, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: run) }
            let log = run.appendingPathComponent("warm.log")

            // One process, K imaging jobs.
            let whole = run.appendingPathComponent("whole/Images.warmcache")
            let load = Measurement.loadAverage()
            let single = try Subprocess.measure(tool.path, [
                "warm", manifest.path, "--quiet", "--jobs", String(shards), "-o", whole.path,
                "--cache-dir", run.appendingPathComponent("whole/cache").path,
            ], environment: environment, output: .file(log))
            guard single.succeeded else {
                throw ValidationError("one process, \(shards) jobs: \(single.summary) (log: \(ScaleBenchmark.tail(log)))")
            }
            print("round \(round): 1 process, --jobs \(shards): \(Measurement.format(single.seconds, 2)) s "
                + "(CPU \(Measurement.format(single.cpuSeconds, 1)) s)  "
                + "\(Measurement.format(Double(sources) / single.seconds)) sources/s  "
                + "peak RSS \(Measurement.format(single.peakRSSMiB, 0)) MiB  (\(load) before)")

            // K processes at once, one imaging job each, then the merge.
            let partsLoad = Measurement.loadAverage()
            let started = Measurement.now()
            let parts = (1...shards).map { run.appendingPathComponent("parts/part-\($0).warmcache") }
            let children = try (1...shards).map { index in
                try Subprocess.start(tool.path, [
                    "warm", manifest.path, "--quiet", "--jobs", "1", "--shard", "\(index)/\(shards)",
                    "-o", parts[index - 1].path,
                    "--cache-dir", run.appendingPathComponent("parts/cache-\(index)").path,
                ], environment: environment, output: .file(log))
            }
            let outcomes = children.map { $0.wait() }
            let shardSeconds = Double(Measurement.now() - started) / 1e9
            if let failed = outcomes.first(where: { !$0.succeeded }) {
                throw ValidationError("a shard failed: \(failed.summary) (log: \(ScaleBenchmark.tail(log)))")
            }
            let merged = run.appendingPathComponent("parts/Images.warmcache")
            let merge = try Subprocess.measure(tool.path, ["merge", "--quiet", "-o", merged.path] + parts.map(\.path),
                                               output: .file(log))
            guard merge.succeeded else { throw ValidationError("merge: \(merge.summary) (log: \(ScaleBenchmark.tail(log)))") }
            let total = shardSeconds + merge.seconds
            let identical = FileManager.default.contentsEqual(atPath: whole.appendingPathComponent("index.sqlite").path,
                                                              andPath: merged.appendingPathComponent("index.sqlite").path)
            print("round \(round): \(shards) processes, --jobs 1 each: \(Measurement.format(shardSeconds, 2)) s "
                + "+ merge \(Measurement.format(merge.seconds, 2)) s = \(Measurement.format(total, 2)) s "
                + "(CPU \(Measurement.format(outcomes.map(\.cpuSeconds).reduce(0, +) + merge.cpuSeconds, 1)) s)  "
                + "\(Measurement.format(Double(sources) / total)) sources/s  "
                + "peak RSS \(Measurement.format(outcomes.map(\.peakRSSMiB).max() ?? 0, 0)) MiB per process "
                + "(\(Measurement.format(outcomes.map(\.peakRSSMiB).reduce(0, +), 0)) MiB together)  "
                + "(\(partsLoad) before)")
            print("round \(round): sharded / one process = \(Measurement.format(total / single.seconds, 2))×; "
                + "merged index \(identical ? "byte-identical to" : "DIFFERS from") the one-process index")
        }
        print("(\(Measurement.loadAverage()) at the end)")
    }
}
