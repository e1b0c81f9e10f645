import ArgumentParser
import Foundation
import WarmCache
import WarmCacheBuilder

/// Lookup latency of the runtime library on a large index.
///
/// Builds a bundle with `--sources` x 10 variants (100,000 by default: 10,000 sources, an inside
/// ladder of 100/200/400 pt at @2x/@3x in WebP and JPEG, minus two), then times exact-key lookups
/// and best-fit lookups on random sources from one thread and from several, printing p50/p99.
struct LookupBenchmark: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "lookup",
                                                    abstract: "Lookup latency (p50/p99) on a 100,000-variant index.")

    @Option(help: "Number of sources; each gets 10 variants.")
    var sources = 10_000

    @Option(help: "Lookups per measurement.")
    var lookups = 100_000

    @Option(help: "Concurrent reader tasks for the parallel measurement.")
    var readers = 4

    func run() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("wc-lookup-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let bundleURL = directory.appendingPathComponent("Bench.warmcache")
        var keys: [VariantKey] = []
        let buildSeconds = try Measurement.seconds {
            keys = try buildBundle(at: bundleURL)
        }
        let indexBytes = (try FileManager.default.attributesOfItem(
            atPath: bundleURL.appendingPathComponent("index.sqlite").path)[.size] as? NSNumber)?.intValue ?? 0
        print("index: \(keys.count) variants, \(sources) sources, \(indexBytes / 1024) KiB, written in "
              + "\(Measurement.format(buildSeconds, 2)) s")

        var bundle: CacheBundle!
        let openSeconds = try Measurement.seconds { bundle = try CacheBundle(contentsOf: bundleURL) }
        print("open: \(Measurement.format(openSeconds * 1e6, 0)) µs")
        let residentBefore = Measurement.residentMiB()
        var memoryIndex: (variantCount: Int, byteCount: Int)?
        let indexSeconds = try Measurement.seconds { memoryIndex = bundle.prepareMemoryIndex() }
        if let memoryIndex {
            print("in-memory index (built in the background after the first best-fit lookup): "
                  + "\(memoryIndex.variantCount) variants, \(memoryIndex.byteCount / 1024) KiB held "
                  + "(\(memoryIndex.byteCount / max(1, memoryIndex.variantCount)) bytes per variant), resident "
                  + "+\(Measurement.format(Measurement.residentMiB() - residentBefore)) MiB, "
                  + "built in \(Measurement.format(indexSeconds * 1e3, 0)) ms")
        }

        var generator = SystemRandomNumberGenerator()
        let exactKeys = (0..<lookups).map { _ in keys.randomElement(using: &generator)! }
        let sizes = [PointSize(width: 100, height: 100), PointSize(width: 180, height: 120),
                     PointSize(width: 375, height: 200)]
        let queries = (0..<lookups).map { _ in
            (keys.randomElement(using: &generator)!.source, sizes.randomElement(using: &generator)!,
             Double(Int.random(in: 1...3, using: &generator)))
        }

        let exact = try time(exactKeys) { key in _ = try bundle.image(for: key) }
        report("exact lookup, 1 thread", exact)
        let best = try time(queries) { query in
            _ = try bundle.bestImage(for: query.0, size: query.1, scale: query.2, accepting: [.avif, .webp, .jpeg])
        }
        report("best-fit lookup, 1 thread", best)

        let shared = bundle!
        let chunk = queries.count / readers
        let started = Measurement.now()
        let parallel = try await withThrowingTaskGroup(of: [Double].self) { group in
            for reader in 0..<readers {
                let slice = Array(queries[(reader * chunk)..<((reader + 1) * chunk)])
                group.addTask {
                    try time(slice) { query in
                        _ = try shared.bestImage(for: query.0, size: query.1, scale: query.2,
                                                 accepting: [.avif, .webp, .jpeg])
                    }
                }
            }
            return try await group.reduce(into: [Double]()) { $0 += $1 }.sorted()
        }
        let wall = Double(Measurement.now() - started) / 1e9
        report("best-fit lookup, \(readers) readers", parallel)
        print("  throughput with \(readers) readers: \(Int(Double(parallel.count) / wall)) lookups/s")
        print("peak RSS: \(Measurement.format(Measurement.peakRSSMiB())) MiB")
    }

    private func buildBundle(at url: URL) throws -> [VariantKey] {
        let writer = BundleWriter(bundleURL: url)
        try writer.prepare()
        var blobs: [ImageFormat: StoredBlob] = [:]
        for format in [ImageFormat.webp, .jpeg] {
            blobs[format] = try writer.storeBlob(Data("blob \(format)".utf8), format: format)
        }
        var contents = BundleContents()
        var keys: [VariantKey] = []
        for index in 0..<sources {
            let source = SourceIdentifier("https://cdn.example.com/products/\(index).jpg")
            contents.sources.append(.init(identifier: source, contentSHA256: String(repeating: "0", count: 64),
                                          format: "jpeg", pixelSize: PixelSize(width: 2400, height: 1600),
                                          byteCount: 500_000))
            var ladder: [(Int, Int)] = []
            for width in [100, 200, 400] { for scale in [2, 3] { ladder.append((width, scale)) } }
            for (width, scale) in ladder.prefix(5) {
                for format in [ImageFormat.webp, .jpeg] {
                    let key = VariantKey(source: source, spec: VariantSpec(width: width, height: nil, scale: scale,
                                                                           format: format, quality: 80))
                    let blob = blobs[format]!
                    contents.variants.append(.init(key: key, pixelSize: PixelSize(width: width * scale,
                                                                                  height: width * scale * 2 / 3),
                                                   byteCount: blob.byteCount, blobSHA256: blob.sha256, hasAlpha: false))
                    keys.append(key)
                }
            }
        }
        try writer.commit(contents)
        return keys
    }

    private func report(_ label: String, _ sorted: [Double]) {
        print("\(label): p50 \(Measurement.format(Measurement.percentile(sorted, 0.5) * 1e6, 1)) µs, "
              + "p99 \(Measurement.format(Measurement.percentile(sorted, 0.99) * 1e6, 1)) µs, "
              + "max \(Measurement.format((sorted.last ?? 0) * 1e6, 1)) µs over \(sorted.count) lookups")
    }
}

/// Times `body` once per element; returns sorted seconds.
private func time<T>(_ items: [T], _ body: (T) throws -> Void) throws -> [Double] {
    var samples: [Double] = []
    samples.reserveCapacity(items.count)
    for item in items {
        let start = Measurement.now()
        try body(item)
        samples.append(Double(Measurement.now() - start) / 1e9)
    }
    return samples.sorted()
}
