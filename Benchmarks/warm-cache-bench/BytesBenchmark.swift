import ArgumentParser
import Foundation
import WarmCache
import WarmCacheBuilder
import WarmCacheImaging

/// `warm-cache-bench bytes`: what each encoding setup costs in bytes, how it looks (SSIMULACRA2
/// against the unencoded pixels) and how much CPU it takes, on a folder of photos.
///
/// Every photo is rendered at each width by each setup (sharp's defaults, WarmCache's fixed
/// defaults, `quality: auto` per format, and `formats: [smallest]` for an iOS 16 app). Each setup
/// renders alone, in this process, one photo at a time, so its CPU time is decode, resize and
/// encode (and the quality search) of its own variants. Scores are against a lossless render of
/// the same variant. `--dump` writes every file for an independent scorer
/// (`Benchmarks/independent-scores.py`).
struct BytesBenchmark: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bytes",
        abstract: "Bytes, SSIMULACRA2 and CPU of each encoding setup on a folder of photos.")

    @Option(help: "Folder searched recursively for .jpg/.jpeg/.png photos.")
    var images: String = "/usr/share/wallpapers"

    @Option(help: "Use at most this many photos (0: all).")
    var limit: Int = 0

    @Option(help: "Variant widths, comma-separated.")
    var widths: String = "64,128,256,512,1024"

    @Option(help: "The quality target of the auto setups (default: the built-in one).")
    var target: Int = PerceptualQuality.defaultTarget

    @Option(help: "Setups to run, comma-separated names (default: all). Names: \(Setup.all.map(\.name).joined(separator: ", "))")
    var setups: String?

    @Option(help: "Write every encoded variant and its lossless reference here, with index.tsv.")
    var dump: String?

    mutating func run() async throws {
        let photos = try ImagingBenchmark.photos(in: images, limit: limit)
        guard !photos.isEmpty else { throw ValidationError("no photos under \(images)") }
        let widths = self.widths.split(separator: ",").compactMap { Int($0.trimmingCharacters(in: .whitespaces)) }
        let chosen = setups.map { names in Set(names.split(separator: ",").map(String.init)) }
        let runs = Setup.all(target: target).filter { chosen?.contains($0.name) ?? true }
        _ = try ImagingRuntime.start(ImagingRuntime.Settings(threadsPerImage: 1))
        let engine = try ImagingEngine(configuration: ImagingConfiguration(maxPixels: 200_000_000))
        print("bytes benchmark: \(photos.count) photos from \(images), widths \(widths.map(String.init).joined(separator: "/")), "
              + "target \(target), libvips \(ImagingEngine.libvipsVersion), one thread")

        var results: [String: Tally] = [:]
        var index: [String] = []
        if let dump { try FileManager.default.createDirectory(atPath: dump, withIntermediateDirectories: true) }
        for (number, photo) in photos.enumerated() {
            let source = try engine.open(try Data(contentsOf: URL(fileURLWithPath: photo.path)), name: photo.path)
            // The unencoded pixels of every width: a lossless render with the same sizes (one cascade).
            let lossless = try source.render(widths.map { VariantSpec(width: $0, height: nil, format: .png) })
            let references = try lossless.map { try PerceptualScoring.reference(encoded: $0.data) }
            let stem = "\(number)"
            if let dump {
                for (width, variant) in zip(widths, lossless) {
                    try variant.data.write(to: URL(fileURLWithPath: "\(dump)/\(stem)-\(width)-ref.png"))
                }
            }
            for setup in runs {
                let groups = widths.map { width in setup.requests(width).map { $0.candidates(sourceHasAlpha: source.info.hasAlpha) } }
                let started = ProcessCPUClock.now()
                let rendered = try source.render(candidates: groups.flatMap { $0 }, placeholder: []).variants
                let cpu = ProcessCPUClock.now() - started
                var tally = results[setup.name] ?? Tally()
                tally.cpu += cpu
                let perWidth = rendered.count / widths.count
                for (offset, variant) in rendered.enumerated() {
                    let widthIndex = offset / perWidth
                    let score = try PerceptualScoring.score(variant.data, against: references[widthIndex])
                    tally.add(bytes: variant.data.count, score: score, format: variant.spec.format)
                    if let dump {
                        let name = "\(setup.name)-\(stem)-\(widths[widthIndex])-\(offset).\(variant.spec.format.fileExtension)"
                        try variant.data.write(to: URL(fileURLWithPath: "\(dump)/\(name)"))
                        index.append([setup.name, "\(stem)-\(widths[widthIndex])-ref.png", name, String(format: "%.3f", score)]
                            .joined(separator: "\t"))
                    }
                }
                results[setup.name] = tally
            }
            FileHandle.standardError.write(Data("\r  \(number + 1)/\(photos.count) photos".utf8))
        }
        FileHandle.standardError.write(Data("\n".utf8))
        if let dump {
            try (["setup\treference\tdistorted\tscore"] + index).joined(separator: "\n")
                .write(toFile: "\(dump)/index.tsv", atomically: true, encoding: .utf8)
        }
        let baseline = results["sharp-jpeg"]?.bytes
        // The CPU of the same variants as a plain JPEG warm: `formats: [jpeg]`, `quality: 80`.
        let plainCPU = results[Setup.plainJPEG]?.cpu
        print("| setup | bytes | × sharp JPEG | SSIMULACRA2 mean | worst decile | min | CPU s | CPU × \(Setup.plainJPEG) | formats kept |")
        print("|---|---|---|---|---|---|---|---|---|")
        for setup in runs {
            guard let tally = results[setup.name] else { continue }
            let ratio = baseline.map { String(format: "%.2f", Double(tally.bytes) / Double($0)) } ?? "–"
            let cpuRatio = plainCPU.map { String(format: "%.1f", tally.cpu / $0) } ?? "–"
            let formats = tally.formats.sorted { $0.value > $1.value }.map { "\($0.key.rawValue) \($0.value)" }
                .joined(separator: ", ")
            print("| \(setup.name) | \(tally.bytes) | \(ratio) | \(String(format: "%.1f", tally.mean)) | "
                  + "\(String(format: "%.1f", tally.percentile(0.1))) | \(String(format: "%.1f", tally.scores.min() ?? 0)) | "
                  + "\(String(format: "%.2f", tally.cpu)) | \(cpuRatio) | \(formats) |")
        }
        try scorerSpeed(photo: photos[0].path, engine: engine)
    }

    /// Times SSIMULACRA2 itself on 640×480 pixels of the first photo (a JPEG q80 against its PNG),
    /// one thread: from scratch, and against a prepared reference as a search scores its trials.
    func scorerSpeed(photo: String, engine: ImagingEngine) throws {
        let source = try engine.open(try Data(contentsOf: URL(fileURLWithPath: photo)), name: photo)
        let size = { (format: ImageFormat) in VariantSpec(width: 640, height: 480, fit: .cover(.centre), format: format) }
        let rendered = try source.render([size(.png), size(.jpeg)])
        let original = try PerceptualScoring.pixels(encoded: rendered[0].data)
        let distorted = try PerceptualScoring.pixels(encoded: rendered[1].data)
        func median(_ body: () -> Void) -> Double {
            body()  // warm-up
            let times = (0..<15).map { _ in
                let started = ProcessCPUClock.now()
                body()
                return ProcessCPUClock.now() - started
            }.sorted()
            return times[times.count / 2] * 1000
        }
        let scratch = median { _ = SSIMULACRA2.score(reference: original, distorted: distorted) }
        let reference = SSIMULACRA2Reference(original)
        let prepared = median { _ = reference.score(distorted) }
        print(String(format: "SSIMULACRA2, %dx%d, one thread (median of 15): %.1f ms from scratch, %.1f ms "
                     + "against a prepared reference (%.0f ns a pixel)", original.width, original.height, scratch,
                     prepared, prepared * 1e6 / Double(original.width * original.height)))
    }

    /// One way of encoding every width: its requests (one per format it ships).
    struct Setup {
        var name: String
        var requests: (_ width: Int) -> [VariantRequest]

        static var all: [Setup] { all(target: PerceptualQuality.defaultTarget) }

        /// The setup every CPU figure is divided by: a plain JPEG warm (`formats: [jpeg]`,
        /// `quality: 80`, the encoder's other defaults).
        static let plainJPEG = "jpeg-80"

        static func all(target: Int) -> [Setup] {
            func fixed(_ format: ImageFormat, _ quality: Int?, _ options: EncodingOptions = .default) -> (Int) -> VariantRequest {
                { width in
                    VariantRequest(width: width, height: nil, format: .fixed(format),
                                   quality: quality.map { [format: .fixed($0)] } ?? [:], options: options)
                }
            }
            func auto(_ format: ImageFormat, _ options: EncodingOptions = .default) -> (Int) -> VariantRequest {
                { width in
                    VariantRequest(width: width, height: nil, format: .fixed(format), quality: [format: .perceptual],
                                   qualityTarget: target, options: options)
                }
            }
            let sub = EncodingOptions(chromaSubsampling: true), full = EncodingOptions(chromaSubsampling: false)
            let sharpJPEG = fixed(.jpeg, 80, EncodingOptions(chromaSubsampling: true))
            let sharpWebP = fixed(.webp, 80, EncodingOptions(effort: 4))
            let sharpAVIF = fixed(.avif, 50, EncodingOptions(chromaSubsampling: false, effort: 4))
            let ios16 = AppPlatforms([.ios: "16.0"])
            return [
                Setup(name: plainJPEG) { [fixed(.jpeg, 80)($0)] },
                Setup(name: "sharp-jpeg") { [sharpJPEG($0)] },
                Setup(name: "sharp-webp") { [sharpWebP($0)] },
                Setup(name: "sharp-avif") { [sharpAVIF($0)] },
                Setup(name: "fixed-jpeg") { [fixed(.jpeg, nil)($0)] },
                Setup(name: "fixed-webp") { [fixed(.webp, nil)($0)] },
                Setup(name: "fixed-avif") { [fixed(.avif, nil)($0)] },
                Setup(name: "fixed-webp+jpeg") { [fixed(.webp, nil)($0), fixed(.jpeg, nil)($0)] },
                Setup(name: "auto-jpeg") { [auto(.jpeg)($0)] },
                Setup(name: "auto-webp") { [auto(.webp)($0)] },
                Setup(name: "auto-avif") { [auto(.avif)($0)] },
                Setup(name: "auto-webp+jpeg") { [auto(.webp)($0), auto(.jpeg)($0)] },
                Setup(name: "auto-heic") { [auto(.heic)($0)] },
                Setup(name: "auto-jxl") { [auto(.jxl)($0)] },
                // Chroma choices, to compare with each format's own rule:
                Setup(name: "auto-jpeg-420") { [auto(.jpeg, sub)($0)] },
                Setup(name: "auto-jpeg-444") { [auto(.jpeg, full)($0)] },
                Setup(name: "auto-webp-420") { [auto(.webp, sub)($0)] },
                Setup(name: "auto-webp-sharp") { [auto(.webp, full)($0)] },
                Setup(name: "auto-avif-420") { [auto(.avif, sub)($0)] },
                Setup(name: "auto-avif-444") { [auto(.avif, full)($0)] },
                Setup(name: "auto-avif-e4") { [auto(.avif, EncodingOptions(effort: 4))($0)] },
            ] + SearchSpeed.allCases.map { speed in
                // `smallest-ios16` is the default speed; the others name theirs.
                let name = speed == .default ? "smallest-ios16" : "smallest-ios16-\(speed.rawValue)"
                return Setup(name: name) { width in
                    [VariantRequest(width: width, height: nil, format: ios16.smallest, qualityTarget: target,
                                    options: EncodingOptions(speed: speed))]
                }
            } + [
                Setup(name: "auto-avif-fast") { [auto(.avif, EncodingOptions(speed: .fast))($0)] },
                Setup(name: "auto-avif-smallest") { [auto(.avif, EncodingOptions(speed: .smallest))($0)] },
            ]
        }
    }

    struct Tally {
        var bytes = 0
        var scores: [Double] = []
        var cpu = 0.0
        var formats: [ImageFormat: Int] = [:]

        mutating func add(bytes: Int, score: Double, format: ImageFormat) {
            self.bytes += bytes
            scores.append(score)
            formats[format, default: 0] += 1
        }

        var mean: Double { scores.isEmpty ? 0 : scores.reduce(0, +) / Double(scores.count) }

        /// The score below which `fraction` of the variants fall (the worst decile's bound for 0.1).
        func percentile(_ fraction: Double) -> Double {
            guard !scores.isEmpty else { return 0 }
            let sorted = scores.sorted()
            return sorted[min(sorted.count - 1, Int(Double(sorted.count) * fraction))]
        }
    }
}

/// CPU time of this process, in seconds: its renders run one at a time, and libvips does part
/// of each on its own worker threads.
enum ProcessCPUClock {
    static func now() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }
}
