import ArgumentParser
import Foundation

/// `warm-cache-bench scale`: the warm at volume. For each N it generates N distinct small JPEGs
/// (kept in `--work-dir` for later runs), serves them over loopback HTTP, warms them with the
/// release `warm-cache` binary in a child process (so peak RSS is the warm's own), warms again
/// with nothing changed (every source revalidated: 304s), and runs a two-process pyvips script
/// making the same thumbnails from the same files.
///
/// `swift run -c release warm-cache-bench scale --sources 1000,10000,100000`
///
/// With `--photos DIR` it warms photos instead (5 widths × JPEG+WebP) and compares with a pyvips
/// script that decodes each photo once and cascades, twice: with libvips' default settings, and
/// writing the files the warm writes. `--runs K` repeats each cold warm K times, each followed by
/// the peers, and counts crashes; the table sets the best of each against the others'.
struct ScaleBenchmark: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "scale",
        abstract: "Warm N generated small images over loopback; sources/s, peak RSS, re-warm, pyvips peer.")

    @Option(help: "Comma-separated source counts.")
    var sources: String = "1000,10000"

    @Option(help: "Where generated images are kept between runs (reused when already there).")
    var workDir: String = FileManager.default.temporaryDirectory.appendingPathComponent("warm-cache-bench-scale").path

    @Option(help: "Cold warms per N (each into a fresh output and cache); crashes are counted, not fatal.")
    var runs: Int = 1

    @Flag(help: "Skip the no-op re-warm.")
    var skipRewarm = false

    @Option(help: "No-op re-warms after the first cold warm; the table shows their median (this machine's speed drifts by tens of percent within minutes).")
    var rewarms: Int = 3

    @Flag(help: "Skip the pyvips peer.")
    var skipPeer = false

    @Option(help: "Processes the pyvips peer uses.")
    var peerProcesses: Int = 2

    @Option(help: "Photo mode: warm the photos under this folder (5 widths x JPEG+WebP) instead of generated images.")
    var photos: String?

    @Option(help: "Photo mode: skip photos larger than this many bytes (0: no limit).")
    var maxPhotoBytes: Int = 0

    @Option(help: "Extra environment for the warm-cache child, e.g. VIPS_NOVECTOR=1 (repeatable).")
    var toolEnv: [String] = []

    @Option(help: "The warm-cache executable to measure (default: the one built beside this benchmark).")
    var tool: String?

    mutating func run() async throws {
        let counts = try sources.split(separator: ",").map { text -> Int in
            guard let count = Int(text.trimmingCharacters(in: .whitespaces).replacingOccurrences(of: "_", with: "")),
                  count > 0 else { throw ValidationError("--sources takes positive counts, e.g. 1000,10000") }
            return count
        }
        let environment = try Self.environment(toolEnv)
        let tool = try self.tool.map { URL(fileURLWithPath: $0) } ?? WarmBenchmark.siblingExecutable("warm-cache")
        let workload = try photos.map { try ScaleWorkload.photos(in: $0, maxBytes: maxPhotoBytes, workDir: workDir) }
            ?? ScaleWorkload.generated(count: counts.max() ?? 0, workDir: workDir)
        let server = try LoopbackFileServer(root: workload.directory)
        defer { server.stop() }
        // Runs' folders are deleted only when everything is measured: on ext4 without a journal,
        // creating files is slow for minutes after many were deleted (freed inodes are skipped
        // while their table blocks are dirty), which would time the file system, not the tool.
        var leftovers: [URL] = []
        defer {
            for folder in leftovers { try? FileManager.default.removeItem(at: folder) }
            if !leftovers.isEmpty {
                print("deleted the runs' folders; on ext4 without a journal creating files stays slow for up to "
                    + "6 minutes after a large deletion, so leave that long before timing the next run")
            }
        }
        func setAside(_ folder: URL) {
            guard FileManager.default.fileExists(atPath: folder.path) else { return }
            let aside = URL(fileURLWithPath: workDir).appendingPathComponent("deleted-\(UUID().uuidString)")
            if (try? FileManager.default.moveItem(at: folder, to: aside)) != nil { leftovers.append(aside) }
        }
        // An earlier benchmark's leftovers (one that was killed) go at the end too.
        for name in (try? FileManager.default.contentsOfDirectory(atPath: workDir)) ?? []
            where name.hasPrefix("deleted-") {
            leftovers.append(URL(fileURLWithPath: workDir).appendingPathComponent(name))
        }
        print("scale benchmark: \(workload.description), \(ProcessInfo.processInfo.activeProcessorCount) cores, "
            + "served by \(server.name), "
            + "\(tool.path)\(environment.isEmpty ? "" : " with \(toolEnv.joined(separator: " "))")")
        var rows: [ScaleRow] = []
        for count in counts {
            let names = workload.names(count)
            var row = ScaleRow(sources: names.count)
            let scratch = URL(fileURLWithPath: workDir).appendingPathComponent("run-\(names.count)")
            setAside(scratch)
            try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
            defer { setAside(scratch) }
            let urlList = scratch.appendingPathComponent("urls.txt")
            try names.map { "http://127.0.0.1:\(server.port)/\($0)\n" }.joined()
                .write(to: urlList, atomically: true, encoding: .utf8)

            for attempt in 1...max(1, runs) {
                let run = scratch.appendingPathComponent("attempt-\(attempt)")
                try FileManager.default.createDirectory(at: run, withIntermediateDirectories: true)
                let manifest = run.appendingPathComponent("warm-cache.yml")
                try workload.manifest(urlsFile: urlList.path).write(to: manifest, atomically: true, encoding: .utf8)
                let arguments = ["warm", manifest.path, "--quiet", "--cache-dir", run.appendingPathComponent("cache").path,
                                 "--report", run.appendingPathComponent("report.json").path]
                let log = run.appendingPathComponent("warm.log")
                let cold = try Subprocess.measure(tool.path, arguments, environment: environment, output: .file(log))
                guard cold.succeeded else {
                    row.crashes += cold.signalled ? 1 : 0
                    row.failures += cold.signalled ? 0 : 1
                    print("N=\(names.count) run \(attempt): \(cold.summary) after \(Measurement.format(cold.seconds, 1)) s"
                        + "  (log: \(Self.tail(log)))")
                    continue
                }
                let totals = try RunTotals(run.appendingPathComponent("report.json"))
                let lost = names.count - totals.fetched
                row.record(cold: cold, lost: lost)
                print("N=\(names.count) run \(attempt): \(Measurement.format(cold.seconds, 2)) s  "
                    + "\(Measurement.format(Double(names.count) / cold.seconds)) sources/s  "
                    + "peak RSS \(Measurement.format(cold.peakRSSMiB, 0)) MiB"
                    + " (imaging processes \(Measurement.format(cold.childrenPeakRSSMiB, 0)) MiB more)  [\(totals)]"
                    + (lost != 0 ? "  LOST \(lost) SOURCES" : ""))

                if attempt == 1 && !skipRewarm {
                    for _ in 0..<max(1, rewarms) {
                        let again = try Subprocess.measure(tool.path, arguments, environment: environment, output: .file(log))
                        guard again.succeeded else {
                            print("N=\(names.count) re-warm: \(again.summary)  (log: \(Self.tail(log)))")
                            row.crashes += again.signalled ? 1 : 0
                            break
                        }
                        let rewarmTotals = try RunTotals(run.appendingPathComponent("report.json"))
                        row.rewarmSeconds.append(again.seconds)
                        row.rewarmRevalidated = min(row.rewarmRevalidated ?? .max, rewarmTotals.revalidated)
                        print("N=\(names.count) re-warm, nothing changed: \(Measurement.format(again.seconds, 2)) s "
                            + "(\(Measurement.format(again.seconds / cold.seconds * 100)) % of cold)  "
                            + "peak RSS \(Measurement.format(again.peakRSSMiB, 0)) MiB  [\(rewarmTotals)]")
                    }
                }
                setAside(run)
                // The peers run after each warm, so both see the machine as it is then (its
                // speed drifts by tens of percent within minutes).
                if !skipPeer {
                    for (index, peer) in workload.peers.enumerated() {
                        let rate = try PyvipsPeer.run(peer.command, directory: workload.directory, count: names.count,
                                                      processes: peerProcesses)
                        row.peerRates[index, default: []].append(rate)
                        print("N=\(names.count) \(peer.label), \(peerProcesses) processes (\(peer.description)): "
                            + "\(Measurement.format(rate)) sources/s")
                    }
                }
            }

            rows.append(row)
        }
        print("\n" + ScaleRow.table(rows, peers: skipPeer ? [] : workload.peers, peerProcesses: peerProcesses))
    }

    /// `--tool-env KEY=VALUE` options as an environment for the children.
    static func environment(_ pairs: [String]) throws -> [String: String] {
        try Dictionary(pairs.map { pair -> (String, String) in
            guard let equals = pair.firstIndex(of: "=") else { throw ValidationError("--tool-env takes KEY=VALUE") }
            return (String(pair[..<equals]), String(pair[pair.index(after: equals)...]))
        }, uniquingKeysWith: { _, last in last })
    }

    /// The last line of a child's log, for a failure line.
    static func tail(_ log: URL) -> String {
        let text = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
        return text.split(separator: "\n").last.map(String.init) ?? "empty"
    }
}

/// One N's figures.
struct ScaleRow {
    var sources: Int
    var coldSeconds: [Double] = []
    var peakRSS: [Double] = []
    var childrenPeakRSS: [Double] = []
    var crashes = 0
    var failures = 0
    var lost = 0
    var rewarmSeconds: [Double] = []
    /// The fewest sources revalidated by any re-warm.
    var rewarmRevalidated: Int?
    /// Per peer (by its place in the workload's list), its rate after each cold warm.
    var peerRates: [Int: [Double]] = [:]

    mutating func record(cold: Subprocess.Outcome, lost: Int) {
        coldSeconds.append(cold.seconds)
        peakRSS.append(cold.peakRSSMiB)
        childrenPeakRSS.append(cold.childrenPeakRSSMiB)
        self.lost += lost
    }

    /// Best cold warm against each peer's best run (each of the K runs is followed by the peers').
    static func table(_ rows: [ScaleRow], peers: [ScaleWorkload.Peer], peerProcesses: Int) -> String {
        let peerColumns = peers.map { "| \($0.label), \(peerProcesses) proc. sources/s | warm / \($0.label) " }.joined()
        var lines = [
            "| sources | warm sources/s | peak RSS (+ imaging processes') | re-warm (304s), median (range) | % of cold "
                + peerColumns + "| runs, crashed |",
            "|---|---|---|---|---|" + String(repeating: "---|---|", count: peers.count) + "---|",
        ]
        for row in rows {
            let best = row.coldSeconds.min()
            let rate = best.map { Double(row.sources) / $0 }
            let sorted = row.rewarmSeconds.sorted()
            let median = sorted.isEmpty ? nil : sorted[sorted.count / 2]
            let spread = sorted.count > 1
                ? " (\(Measurement.format(sorted[0], 2))–\(Measurement.format(sorted[sorted.count - 1], 2)))" : ""
            let rewarm = median.map {
                "\(Measurement.format($0, 2)) s\(spread), \(row.rewarmRevalidated ?? 0) revalidated"
            } ?? "–"
            var share = "–"
            if let median, let cold = row.coldSeconds.first {
                share = Measurement.format(median / cold * 100) + " %"
            }
            let peerCells = peers.indices.map { index -> String in
                let peerRate = row.peerRates[index]?.max()
                let ratio = rate.flatMap { rate in peerRate.map { Measurement.format(rate / $0, 2) + "×" } } ?? "–"
                return "| \(peerRate.map { Measurement.format($0) } ?? "–") | \(ratio) "
            }.joined()
            let attempts = row.coldSeconds.count + row.crashes + row.failures
            lines.append("| \(row.sources) | \(rate.map { Measurement.format($0) } ?? "–") "
                + "| \(row.peakRSS.max().map { Measurement.format($0, 0) + " MiB" } ?? "–")"
                + "\(row.childrenPeakRSS.max().map { $0 > 0 ? " (+ " + Measurement.format($0, 0) + " MiB)" : "" } ?? "") "
                + "| \(rewarm) | \(share) "
                + peerCells
                + "| \(attempts), \(row.crashes) crashed\(row.failures > 0 ? ", \(row.failures) failed" : "")"
                + "\(row.lost > 0 ? ", \(row.lost) sources lost" : "") |")
        }
        return lines.joined(separator: "\n")
    }
}
