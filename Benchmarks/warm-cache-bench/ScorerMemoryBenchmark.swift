import ArgumentParser
import Foundation
import WarmCache
import WarmCacheImaging

/// `warm-cache-bench scorer-memory`: what an SSIMULACRA 2 original costs held prepared and held
/// streamed (``SSIMULACRA2Reference/Mode``), in memory and time, on one large photo.
///
/// The photo is rendered at `--width` × `--height` as PNG (the original) and as JPEG quality 80
/// (the candidate). Each mode runs in a process of its own, so that its peak resident set
/// (`VmHWM`) is its own: it prints the reference's bytes, the time of preparing plus one score
/// and of `--scores` scores (wall and CPU, one thread), and its peak RSS above the RSS it had with
/// the pixels decoded and before the reference existed.
struct ScorerMemoryBenchmark: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "scorer-memory",
        abstract: "Memory and time of SSIMULACRA 2 with a prepared and with a streamed original.")

    @Option(help: "The photo to render (any format libvips reads).")
    var photo: String = "/usr/share/backgrounds/mate/nature/Aqua.jpg"

    @Option(help: "Width of the rendered original.")
    var width: Int = 3072

    @Option(help: "Height of the rendered original.")
    var height: Int = 1920

    @Option(help: "Scores per run after the first.")
    var scores: Int = 8

    @Option(help: "Run one mode in this process (prepared or streamed); without it, each runs in a child.")
    var mode: String?

    func run() throws {
        guard let mode else { return try runBoth() }
        guard let chosen: SSIMULACRA2Reference.Mode = ["prepared": .prepared, "streamed": .streamed][mode] else {
            throw ValidationError("--mode is prepared or streamed, not \(mode)")
        }
        try runOne(chosen)
    }

    /// Runs this command once per mode, each in a child process.
    private func runBoth() throws {
        let automatic = SSIMULACRA2Reference.memory(width: width, height: height, channels: 3)
        print("SSIMULACRA 2 original of \(width)x\(height) from \(photo); by default it is \(automatic.mode) "
              + "(prepared up to \(SSIMULACRA2Reference.preparedByteLimit >> 20) MiB of planes)")
        fflush(nil)  // before the children print theirs
        for mode in ["prepared", "streamed"] {
            let outcome = try Subprocess.measure(CommandLine.arguments[0], [
                "scorer-memory", "--photo", photo, "--width", "\(width)", "--height", "\(height)",
                "--scores", "\(scores)", "--mode", mode,
            ], output: .inherit)
            guard outcome.succeeded else { throw ValidationError("the \(mode) run failed: \(outcome.summary)") }
            print("  the \(mode) process's peak RSS, sampled from outside: "
                  + String(format: "%.1f MiB", outcome.peakRSSMiB))
        }
    }

    /// Prepares (or holds) the original in `mode`, scores once, then `scores` times, and prints.
    private func runOne(_ mode: SSIMULACRA2Reference.Mode) throws {
        _ = try ImagingRuntime.start(ImagingRuntime.Settings(threadsPerImage: 1))
        let engine = try ImagingEngine(configuration: ImagingConfiguration(maxPixels: 200_000_000))
        let source = try engine.open(try Data(contentsOf: URL(fileURLWithPath: photo)), name: photo)
        let size = { (format: ImageFormat, quality: Int?) in
            VariantSpec(width: width, height: height, fit: .cover(.centre), allowUpscale: true, format: format,
                        quality: quality)
        }
        let rendered = try source.render([size(.png, nil), size(.jpeg, 80)])
        let original = try PerceptualScoring.pixels(encoded: rendered[0].data)
        let distorted = try PerceptualScoring.pixels(encoded: rendered[1].data)
        ImagingBenchmark.ProcessMemory.resetPeak()
        let baseline = ImagingBenchmark.ProcessMemory.peakBytes()

        let (first, firstCPU, reference, score) = Self.measure { () -> (SSIMULACRA2Reference, Double) in
            let reference = SSIMULACRA2Reference(original, mode: mode)
            return (reference, reference.score(distorted))
        }
        let (many, manyCPU, _, _) = Self.measure { () -> (Int, Double) in
            for _ in 0..<scores { _ = reference.score(distorted) }
            return (0, 0)
        }
        let peak = ImagingBenchmark.ProcessMemory.peakBytes()
        let memory = SSIMULACRA2Reference.memory(width: original.width, height: original.height, channels: 3,
                                                 mode: mode)
        let pixels = Double(original.width * original.height)
        let mib = { (bytes: Int) in Double(bytes) / 1_048_576 }
        print("\(mode): " + String(format: "reference %.1f MiB (%.1f B/px), a score's workspace %.1f MiB (%.1f B/px); "
                                     + "prepare + 1 score %.2f s (CPU %.2f s), ", mib(memory.reference),
                                     Double(memory.reference) / pixels, mib(memory.score),
                                     Double(memory.score) / pixels, first, firstCPU)
              + "\(scores) scores " + String(format: "%.2f s (CPU %.2f s, %.2f s each); score %.4f; ", many, manyCPU,
                                            manyCPU / Double(max(1, scores)), score)
              + String(format: "peak RSS %.1f MiB, %.1f MiB above the %.1f MiB before the reference", mib(peak),
                       mib(peak - baseline), mib(baseline)))
    }

    /// Runs `body` and returns its wall and CPU seconds and its result.
    private static func measure<Kept>(_ body: () -> (Kept, Double)) -> (Double, Double, Kept, Double) {
        let clock = ContinuousClock(), started = clock.now, cpu = ProcessCPUClock.now()
        let (kept, value) = body()
        let elapsed = clock.now - started
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        return (seconds, ProcessCPUClock.now() - cpu, kept, value)
    }
}
