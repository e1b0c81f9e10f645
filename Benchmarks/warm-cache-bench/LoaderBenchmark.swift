import ArgumentParser
import Foundation
import WarmCache
import WarmCacheLoading
import WarmCacheTestSupport

/// The image loader's own cost per request, without a decoder's time.
///
/// Writes a bundle of `--sources` images (two variants each, a blob of their own each), opens it
/// and builds its in-memory index, then, with a stand-in decoder that returns at once:
/// (a) a bundle hit: `image(for:)` of each source once (lookup, scheduling on the decoding
/// threads and back, cache insert); (b) a decoded-cache hit: `cachedImage(for:)` of each (one
/// bundle lookup and a dictionary), the first-frame path of a view; p50/p99/max of each.
/// (c) the decoded cache's high-water mark against its byte limit while `--concurrency` tasks load
/// every source at a larger size (600 px a side) into a cache of `--cache-mib` MiB.
struct LoaderBenchmark: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "loader",
        abstract: "The loader's cost per request (p50/p99) for a bundle hit and a decoded-cache hit, and its cache's peak bytes.")

    @Option(help: "Sources in the bundle; each is requested once per measurement.")
    var sources = 5_000

    @Option(help: "The decoded cache's byte limit, in MiB, for the peak-memory run.")
    var cacheMiB = 64

    @Option(help: "Concurrent loading tasks in the peak-memory run.")
    var concurrency = 8

    func run() async throws {
        let bundleURL = try writeBundle()
        defer { try? FileManager.default.removeItem(at: bundleURL.deletingLastPathComponent()) }
        let bundle = try CacheBundle(contentsOf: bundleURL)
        _ = bundle.prepareMemoryIndex()
        let requests = (0..<sources).map { Self.request($0, side: 100) }
        print("bundle: \(sources) sources, \(sources * 2) variants; \(Measurement.loadAverage()), "
              + "\(ProcessInfo.processInfo.activeProcessorCount) cores")

        // A first pass on a throwaway loader warms the code paths and the file system's cache.
        let warmUp = loader(bundle, megabytes: 4_096)
        for request in requests.prefix(500) { _ = try await warmUp.image(for: request) }

        let loader = loader(bundle, megabytes: 4_096)
        var hits: [Double] = []
        for request in requests {
            let start = Measurement.now()
            _ = try await loader.image(for: request)
            hits.append(Double(Measurement.now() - start) / 1e9)
        }
        report("(a) bundle hit, image(for:), decoder time excluded", hits.sorted())

        var cached: [Double] = []
        for request in requests {
            let start = Measurement.now()
            guard loader.cachedImage(for: request) != nil else { throw ValidationError("a decoded image went missing") }
            cached.append(Double(Measurement.now() - start) / 1e9)
        }
        report("(b) decoded-cache hit, cachedImage(for:)", cached.sorted())
        try await peakMemory(bundle)
    }

    /// (c): every source at 300 × 300 pt @2x (its 800 px variant decoded to 600 px a side,
    /// 1.4 MiB) through a bounded cache, `concurrency` at a time.
    private func peakMemory(_ bundle: CacheBundle) async throws {
        let loader = loader(bundle, megabytes: cacheMiB)
        let requests = (0..<sources).map { Self.request($0, side: 300) }
        let wall = try await Measurement.seconds {
            try await withThrowingTaskGroup(of: Void.self) { group in
                for lane in 0..<concurrency {
                    group.addTask {
                        for index in stride(from: lane, to: requests.count, by: concurrency) {
                            _ = try await loader.image(for: requests[index])
                        }
                    }
                }
                try await group.waitForAll()
            }
        }
        let cache = loader.decodedCache
        print("(c) decoded cache while loading \(sources) images of 600 x 600 px (1.4 MiB each), \(concurrency) at a time: "
              + "peak \(Measurement.format(Double(cache.peakByteCount) / 1_048_576)) MiB of a "
              + "\(Measurement.format(Double(cache.byteLimit) / 1_048_576)) MiB limit, \(cache.count) images held at the end, "
              + "\(Measurement.format(Double(sources) / wall, 0)) loads/s; process peak RSS "
              + "\(Measurement.format(Measurement.peakRSSMiB())) MiB")
    }

    private func loader(_ bundle: CacheBundle, megabytes: Int) -> ImageLoader {
        ImageLoader(bundle: bundle, decoder: StandInDecoder.instant(),
                    configuration: .init(decodedCacheByteLimit: megabytes << 20, decodedCacheCountLimit: 100_000,
                                         usesNetwork: false, accepting: [.png]))
    }

    private static func request(_ index: Int, side: Double) -> ImageRequest {
        ImageRequest(url: URL(string: "https://cdn.example.com/products/\(index).jpg")!,
                     size: PointSize(width: side, height: side), scale: 2)
    }

    /// Each source: a 100 pt and a 400 pt variant at @2x, each blob unique (its index appended).
    private func writeBundle() throws -> URL {
        var fixture = try FixtureBundle(name: "LoaderBench")
        for index in 0..<sources {
            let source = Self.request(index, side: 0).url.absoluteString
            for (width, pixels) in [(100, 200), (400, 800)] {
                let bytes = StandInImages.png(width: pixels, height: pixels * 3 / 4) + Data("\(index)".utf8)
                fixture.add(source, width: width, scale: 2, pixelSize: PixelSize(width: pixels, height: pixels * 3 / 4),
                            bytes: bytes)
            }
        }
        return try fixture.write()
    }

    private func report(_ label: String, _ sorted: [Double]) {
        print("\(label): p50 \(Measurement.format(Measurement.percentile(sorted, 0.5) * 1e6, 1)) µs, "
              + "p99 \(Measurement.format(Measurement.percentile(sorted, 0.99) * 1e6, 1)) µs, "
              + "max \(Measurement.format((sorted.last ?? 0) * 1e6, 1)) µs over \(sorted.count) requests")
    }
}
