import ArgumentParser
import CVipsShim
import Foundation
import WarmCache
import WarmCacheImaging

/// `warm-cache-bench avif-encoders`: CPU and bytes of AVIF encoder setups at equal SSIMULACRA2.
///
/// Every photo is rendered losslessly at each width; for each setup the lowest quality whose
/// encode scores at least the target is found by bisection over the quantizers (each quantizer
/// encoded once), and its file's bytes count. The CPU is this process's per encode (all encodes
/// of the search, averaged), one thread. Setups: libheif (what AVIF went through before) at
/// efforts 4 and 2, and libavif at libaom speeds with codec options.
struct AVIFEncodersBenchmark: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "avif-encoders",
        abstract: "CPU per encode and bytes of AVIF encoder setups at equal SSIMULACRA2, on a folder of photos.")

    @Option(help: "Folder searched recursively for .jpg/.jpeg/.png photos.")
    var images: String

    @Option(help: "Use at most this many photos (0: all).")
    var limit: Int = 0

    @Option(help: "Skip this many photos first (to split a folder between runs).")
    var skip: Int = 0

    @Option(help: "Variant widths, comma-separated.")
    var widths: String = "64,320,390,768,1170"

    @Option(help: "The SSIMULACRA2 score each setup must reach.")
    var target: Double = 80

    @Option(help: "Setups to run, comma-separated names (default: all). Names: \(Setup.all.map(\.name).joined(separator: ", "))")
    var setups: String?

    @Option(help: "More libavif setups, each SPEED or SPEED:OPTIONS (libaom's names, comma-separated), e.g. 6:enable-qm=1.")
    var libavif: [String] = []

    @Flag(help: "4:2:0 chroma instead of 4:4:4 (what a quality target uses).")
    var subsampled = false

    struct Setup {
        var name: String
        var libheifEffort: Int?  // libheif when set, else libavif
        var speed: Int32 = -1
        var single: Bool = true
        var options: String?

        static let all: [Setup] = [
            Setup(name: "heif-e4", libheifEffort: 4),
            Setup(name: "heif-e3", libheifEffort: 3),
            Setup(name: "heif-e2", libheifEffort: 2),
            Setup(name: "avif-s4", speed: 4),
            Setup(name: "avif-s5", speed: 5),
            Setup(name: "avif-s6", speed: 6),
            Setup(name: "avif-s7", speed: 7),
            Setup(name: "avif-s8", speed: 8),
            Setup(name: "avif-s9", speed: 9),
            Setup(name: "avif-s6-good", speed: 6, single: false),
            Setup(name: "avif-s8-good", speed: 8, single: false),
            Setup(name: "avif-s6-ssim", speed: 6, options: "tune=ssim"),
            Setup(name: "avif-s7-ssim", speed: 7, options: "tune=ssim"),
            Setup(name: "avif-s8-ssim", speed: 8, options: "tune=ssim"),
            Setup(name: "avif-s6-sharp2", speed: 6, options: "sharpness=2"),
            Setup(name: "avif-s6-dq0", speed: 6, options: "deltaq-mode=0"),
            Setup(name: "avif-s6-cdq", speed: 6, options: "enable-chroma-deltaq=1"),
            Setup(name: "avif-s6-qm", speed: 6, options: "enable-qm=1"),
        ]
    }

    struct Tally {
        var bytes = 0, encodes = 0, variants = 0
        var cpu = 0.0
        var scores: [Double] = []
    }

    mutating func run() throws {
        let photos = Array(try ImagingBenchmark.photos(in: images, limit: 0).dropFirst(skip).prefix(limit > 0 ? limit : .max))
        guard !photos.isEmpty else { throw ValidationError("no photos under \(images)") }
        let widths = self.widths.split(separator: ",").compactMap { Int($0.trimmingCharacters(in: .whitespaces)) }
        let chosen = setups.map { Set($0.split(separator: ",").map(String.init)) }
        let runs = Setup.all.filter { chosen?.contains($0.name) ?? true } + libavif.compactMap { text in
            let parts = text.split(separator: ":", maxSplits: 1).map(String.init)
            return Int32(parts[0]).map { Setup(name: "avif-s\(text)", speed: $0, options: parts.count > 1 ? parts[1] : nil) }
        }
        _ = try ImagingRuntime.start(ImagingRuntime.Settings(threadsPerImage: 1))
        let engine = try ImagingEngine(configuration: ImagingConfiguration(maxPixels: 200_000_000))
        print("avif-encoders: \(photos.count) photos from \(images), widths \(widths.map(String.init).joined(separator: "/")), "
              + "target \(target), \(subsampled ? "4:2:0" : "4:4:4"), one thread")
        // [setup][width] tallies
        var tallies: [String: [Int: Tally]] = [:]
        for (number, photo) in photos.enumerated() {
            let source = try engine.open(try Data(contentsOf: URL(fileURLWithPath: photo.path)), name: photo.path)
            let lossless = try source.render(widths.map { VariantSpec(width: $0, height: nil, format: .png) })
            for (width, png) in zip(widths, lossless) {
                let reference = try PerceptualScoring.reference(encoded: png.data)
                var loaded: OpaquePointer?
                let status = png.data.withUnsafeBytes { wc_load($0.baseAddress, $0.count, &loaded) }
                guard status == 0, let loaded, let image = wc_copy_memory(loaded) else {
                    throw ValidationError("cannot load the \(width) px render of \(photo.path)")
                }
                wc_unref(loaded)
                defer { wc_unref(image) }
                for setup in runs {
                    var tally = tallies[setup.name]?[width] ?? Tally()
                    let found = try search(setup, image: image, reference: reference)
                    tally.bytes += found.bytes
                    tally.cpu += found.cpu
                    tally.encodes += found.encodes
                    tally.variants += 1
                    tally.scores.append(found.score)
                    tallies[setup.name, default: [:]][width] = tally
                }
            }
            FileHandle.standardError.write(Data("\r  \(number + 1)/\(photos.count) photos".utf8))
        }
        FileHandle.standardError.write(Data("\n".utf8))
        let baseline = tallies[runs[0].name] ?? [:]
        print("| setup | " + widths.map { "\($0) px s/encode" }.joined(separator: " | ")
              + " | CPU/encode, all | bytes | × \(runs[0].name) | " + widths.map { "× at \($0)" }.joined(separator: " | ")
              + " | mean score |")
        print("|---|" + String(repeating: "---|", count: widths.count * 2 + 4))
        for setup in runs {
            guard let byWidth = tallies[setup.name] else { continue }
            let all = byWidth.values.reduce(into: Tally()) {
                $0.bytes += $1.bytes; $0.cpu += $1.cpu; $0.encodes += $1.encodes; $0.scores += $1.scores
            }
            let base = baseline.values.reduce(0) { $0 + $1.bytes }
            let perWidth = widths.map { String(format: "%.3f", byWidth[$0].map { $0.cpu / Double($0.encodes) } ?? 0) }
            let ratios = widths.map { width in
                String(format: "%.3f", Double(byWidth[width]?.bytes ?? 0) / Double(max(1, baseline[width]?.bytes ?? 1)))
            }
            print("| \(setup.name) | " + perWidth.joined(separator: " | ")
                  + String(format: " | %.3f | %d | %.3f | ", all.cpu / Double(all.encodes), all.bytes, Double(all.bytes) / Double(max(1, base)))
                  + ratios.joined(separator: " | ")
                  + String(format: " | %.2f |", all.scores.reduce(0, +) / Double(all.scores.count)))
        }
    }

    /// The smallest passing file (the lowest passing quantizer's) by bisection over quality.
    func search(_ setup: Setup, image: OpaquePointer, reference: PerceptualScoring.PreparedReference) throws
        -> (bytes: Int, score: Double, cpu: Double, encodes: Int)
    {
        var byQuantizer: [Int32: (bytes: Int, score: Double)] = [:]
        var cpu = 0.0
        func trial(_ quality: Int) throws -> (bytes: Int, score: Double) {
            let quantizer = wc_avif_quantizer(Int32(quality))
            if let known = byQuantizer[quantizer] { return known }
            var options = WCSaveOptions(quality: Int32(quality), effort: Int32(setup.libheifEffort ?? 4), lossless: 0,
                                        interlace: 0, subsample: Int32(subsampled ? WC_SUBSAMPLE_ON : WC_SUBSAMPLE_OFF),
                                        smart_subsample: 0, palette: 0, strip: 1)
            var buffer: UnsafeMutableRawPointer?
            var length = 0
            let started = ProcessCPUClock.now()
            let status: Int32
            if setup.libheifEffort != nil {
                status = wc_save_heif(image, &options, 1, &buffer, &length)
            } else {
                status = setup.options.withOptionalCString { codecOptions in
                    var tuning = WCAvifTuning(speed: setup.speed, single_image: setup.single ? 1 : 0,
                                              codec_options: codecOptions)
                    return wc_save_avif_tuned(image, &options, &tuning, &buffer, &length)
                }
            }
            cpu += ProcessCPUClock.now() - started
            guard status == 0, let buffer else {
                let message = wc_error_take().map { pointer in defer { wc_free(pointer) }; return String(cString: pointer) }
                throw ValidationError("\(setup.name) failed: \(message ?? "no message")")
            }
            let data = Data(bytes: buffer, count: length)
            wc_free(buffer)
            let result = (data.count, try PerceptualScoring.score(data, against: reference))
            byQuantizer[quantizer] = result
            return result
        }
        var low = 1, high = 100
        if try trial(high).score < target {
            let best = try trial(high)
            return (best.bytes, best.score, cpu, byQuantizer.count)
        }
        while low < high {
            let middle = (low + high) / 2
            if try trial(middle).score >= target { high = middle } else { low = middle + 1 }
        }
        let found = try trial(high)
        return (found.bytes, found.score, cpu, byQuantizer.count)
    }
}

extension Optional where Wrapped == String {
    func withOptionalCString<R>(_ body: (UnsafePointer<CChar>?) -> R) -> R {
        switch self {
        case .some(let string): string.withCString { body($0) }
        case .none: body(nil)
        }
    }
}
