import Foundation
import WarmCache
import WarmCacheImaging

// Helpers are nested in the command so they cannot clash with other benchmarks' names.
extension ImagingBenchmark {
    /// What one benchmark run measured.
    struct RunResult {
        var sources: Int
        var variants: Int
        var seconds: Double
        /// The engine process's peak RSS; `nil` for the baseline, whose work happens in child processes.
        var peakRSSBytes: Int?
        var outputBytes: Int

        var sourcesPerSecond: Double { Double(sources) / seconds }

        func line(label: String) -> String {
            let rate = String(format: "%.1f sources/s, %.1f variants/s", sourcesPerSecond, Double(variants) / seconds)
            let memory = peakRSSBytes.map { String(format: "peak RSS %.0f MB", Double($0) / 1_048_576) }
                ?? "separate processes"
            let output = String(format: "%.0f KB out", Double(outputBytes) / 1_000)
            return "  \(label): \(String(format: "%.2f", seconds)) s, \(rate), \(memory), \(output)"
        }
    }

    /// Hands out work items to concurrent workers.
    actor WorkQueue {
        private var next = 0
        private let count: Int

        init(count: Int) {
            self.count = count
        }

        func take() -> Int? {
            guard next < count else { return nil }
            defer { next += 1 }
            return next
        }
    }

    /// The engine, in this process, `workers` sources at a time.
    enum EngineRun {
        static func measure(sources: [Photo], specs: [VariantSpec], workers: Int,
                            configuration: ImagingConfiguration) async throws -> RunResult {
            let engine = try ImagingEngine(configuration: configuration)
            ProcessMemory.resetPeak()
            let queue = WorkQueue(count: sources.count)
            let clock = ContinuousClock()
            let start = clock.now
            let totals = try await withThrowingTaskGroup(of: (Int, Int).self) { group in
                for _ in 0..<workers {
                    group.addTask {
                        var variants = 0
                        var bytes = 0
                        while let index = await queue.take() {
                            let path = sources[index].path
                            let data = try Data(contentsOf: URL(fileURLWithPath: path))
                            let rendered = try engine.open(data, name: path).render(specs)
                            variants += rendered.count
                            bytes += rendered.map(\.data.count).reduce(0, +)
                        }
                        return (variants, bytes)
                    }
                }
                var sum = (0, 0)
                for try await partial in group { sum = (sum.0 + partial.0, sum.1 + partial.1) }
                return sum
            }
            let elapsed = clock.now - start
            return RunResult(sources: sources.count, variants: totals.0, seconds: elapsed.seconds,
                                   peakRSSBytes: ProcessMemory.peakBytes(), outputBytes: totals.1)
        }
    }

    /// The `vipsthumbnail` command, one process per source and variant, `workers` at a time.
    enum ThumbnailCommandRun {
        static func measure(sources: [Photo], specs: [VariantSpec], workers: Int) async throws
            -> RunResult {
            let output = FileManager.default.temporaryDirectory.appendingPathComponent("warm-cache-bench-\(getpid())")
            try FileManager.default.createDirectory(at: output, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: output) }
            let jobs = sources.indices.flatMap { source in specs.indices.map { (source, $0) } }
            let queue = WorkQueue(count: jobs.count)
            let clock = ContinuousClock()
            let start = clock.now
            try await withThrowingTaskGroup(of: Void.self) { group in
                for _ in 0..<workers {
                    group.addTask {
                        while let index = await queue.take() {
                            let (source, variant) = jobs[index]
                            let spec = specs[variant]
                            let target = output.appendingPathComponent("\(source)-\(variant).\(spec.format.fileExtension)")
                            try run(["--size", "\(spec.width ?? 0)x", "-o", target.path + saveOptions(spec),
                                     sources[source].path])
                        }
                    }
                }
                try await group.waitForAll()
            }
            let elapsed = clock.now - start
            let written = (try? FileManager.default.contentsOfDirectory(atPath: output.path)) ?? []
            let bytes = written.compactMap {
                try? FileManager.default.attributesOfItem(atPath: output.appendingPathComponent($0).path)[.size] as? Int
            }.reduce(0, +)
            return RunResult(sources: sources.count, variants: jobs.count, seconds: elapsed.seconds,
                                   peakRSSBytes: nil, outputBytes: bytes)
        }

        /// The saver options matching the engine's settings for `spec`.
        static func saveOptions(_ spec: VariantSpec) -> String {
            let quality = spec.quality ?? 80
            switch spec.format {
            case .jpeg: return "[Q=\(quality),optimize_coding,strip]"
            default: return "[Q=\(quality),strip]"
            }
        }

        /// Runs `vipsthumbnail` and waits; its output streams are discarded.
        static func run(_ arguments: [String]) throws {
            try Subprocess.run("/usr/bin/vipsthumbnail", arguments)
        }
    }

    /// Resident memory of this process and its children, from Linux's accounting.
    enum ProcessMemory {
        /// Resets this process's peak RSS (VmHWM) to its current RSS (Linux 4.0+).
        static func resetPeak() {
            LibC.resetPeakRSS()
        }

        /// This process's peak RSS since start or the last reset, in bytes (0 off Linux).
        static func peakBytes() -> Int {
            (LibC.processStatusKiB("self", "VmHWM") ?? 0) * 1024
        }
    }
}

private extension Duration {
    /// The duration in seconds.
    var seconds: Double {
        Double(components.seconds) + Double(components.attoseconds) / 1e18
    }
}
