import ArgumentParser
import Foundation
import WarmCache
import WarmCacheImaging

/// `warm-cache-bench imaging`: the imaging engine against the `vipsthumbnail` command on a
/// folder of photos, with the same number of workers.
///
/// Case 1 renders one 256 px JPEG per source; case 2 renders five widths (64–1024) in JPEG and
/// WebP. The engine runs in this process (one task per worker); the baseline starts one
/// `vipsthumbnail` process per source and variant. Peak RSS is this process's high-water mark
/// during each engine run (reset between runs).
struct ImagingBenchmark: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "imaging",
        abstract: "Benchmark the imaging engine against vipsthumbnail.")

    @Option(help: "Folder searched recursively for .jpg/.jpeg/.png photos.")
    var images: String = "/usr/share/wallpapers"

    @Option(help: "Use at most this many sources (0: all).")
    var limit: Int = 0

    @Option(help: "Concurrent renders (engine tasks and vipsthumbnail processes).")
    var workers: Int = 2

    @Option(help: "libvips threads per image pipeline in the engine.")
    var threadsPerImage: Int = 1

    @Option(help: "Which cases to run: 1, 2 or all.")
    var cases: String = "all"

    @Option(help: "Cap glibc malloc arenas in the engine (0: leave malloc alone).")
    var mallocArenas: Int = 2

    @Option(help: "libvips vector (SIMD) paths: automatic, on or off (compare their cost).")
    var vectorPaths: String = "automatic"

    @Flag(help: "Skip the vipsthumbnail baseline.")
    var skipBaseline = false

    mutating func run() async throws {
        let sources = try Self.photos(in: images, limit: limit)
        guard !sources.isEmpty else { throw ValidationError("no photos under \(images)") }
        let megabytes = Double(sources.map(\.size).reduce(0, +)) / 1_000_000
        guard let vectors = ImagingRuntime.VectorPaths(rawValue: vectorPaths) else {
            throw ValidationError("--vector-paths must be automatic, on or off")
        }
        let runtime = try ImagingRuntime.start(ImagingRuntime.Settings(
            threadsPerImage: threadsPerImage, mallocArenaLimit: mallocArenas > 0 ? mallocArenas : nil,
            vectorPaths: vectors))
        print("imaging benchmark: \(sources.count) photos (\(String(format: "%.1f", megabytes)) MB) from \(images), "
              + "\(workers) workers, \(threadsPerImage) libvips thread(s) per image, "
              + "malloc arenas \(mallocArenas > 0 ? String(mallocArenas) : "unlimited"), libvips \(runtime.libvipsVersion), "
              + "vector paths \(runtime.vectorPathsReason)")

        if cases == "all" || cases == "1" {
            let spec = [VariantSpec(width: 256, height: nil, format: .jpeg, quality: 80)]
            try await runCase("case 1: one 256 px JPEG per source", specs: spec, sources: sources,
                              modes: [("engine", true)])
        }
        if cases == "all" || cases == "2" {
            let specs = [64, 128, 256, 512, 1024].flatMap { width in
                [ImageFormat.jpeg, .webp].map { VariantSpec(width: width, height: nil, format: $0, quality: 80) }
            }
            try await runCase("case 2: widths 64/128/256/512/1024 x JPEG+WebP per source", specs: specs, sources: sources,
                              modes: [("engine, cascade (one decode)", true), ("engine, one decode per size", false)])
        }
    }

    /// Runs one case with the engine (in each mode) and with vipsthumbnail, and prints the ratio.
    private func runCase(_ title: String, specs: [VariantSpec], sources: [Photo],
                         modes: [(label: String, cascade: Bool)]) async throws {
        print("\n\(title)")
        var engineRate: Double?
        for mode in modes {
            let configuration = ImagingConfiguration(maxPixels: 200_000_000, cascade: mode.cascade)
            let result = try await EngineRun.measure(sources: sources, specs: specs, workers: workers,
                                                     configuration: configuration)
            print(result.line(label: mode.label))
            if engineRate == nil { engineRate = result.sourcesPerSecond }
        }
        guard !skipBaseline else { return }
        let baseline = try await ThumbnailCommandRun.measure(sources: sources, specs: specs, workers: workers)
        print(baseline.line(label: "vipsthumbnail, 1 process per variant"))
        if let engineRate {
            print("  ratio engine / vipsthumbnail: \(String(format: "%.2f", engineRate / baseline.sourcesPerSecond))x")
        }
    }

    /// One input photo.
    struct Photo: Sendable {
        var path: String
        var size: Int
    }

    /// Photos under `folder`, sorted by path for repeatable runs. Symbolic links (wallpaper
    /// packages link one photo under several resolution names) and screenshots are skipped.
    static func photos(in folder: String, limit: Int) throws -> [Photo] {
        guard let walker = FileManager.default.enumerator(atPath: folder) else { return [] }
        var photos: [Photo] = []
        while let relative = walker.nextObject() as? String {
            let lower = relative.lowercased()
            guard lower.hasSuffix(".jpg") || lower.hasSuffix(".jpeg") || lower.hasSuffix(".png"),
                  !lower.contains("screenshot") else { continue }
            let path = (folder as NSString).appendingPathComponent(relative)
            let attributes = try FileManager.default.attributesOfItem(atPath: path)
            guard attributes[.type] as? FileAttributeType == .typeRegular else { continue }
            photos.append(Photo(path: path, size: (attributes[.size] as? Int) ?? 0))
        }
        photos.sort { $0.path < $1.path }
        return limit > 0 ? Array(photos.prefix(limit)) : photos
    }
}
