import ArgumentParser
import Foundation
import WarmCache
import WarmCacheBuilder

/// What checking reused blobs costs a re-warm: runs, over every variant of a baked bundle, the
/// check `warm` makes before reusing a blob (`BundleWriter.hasIntactBlob`: size and SHA-256), and
/// the size-only check it replaced, and prints both. Compare with the re-warm's own time.
///
/// `swift run -c release warm-cache-bench reuse-check path/to/Images.warmcache`
struct ReuseCheckBenchmark: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "reuse-check",
        abstract: "Time the re-warm's blob check (size + SHA-256) over every variant of a bundle.")

    @Argument(help: "A baked bundle directory.")
    var bundle: String

    func run() throws {
        let url = URL(fileURLWithPath: bundle)
        let reader = try CacheBundle(contentsOf: url)
        var variants: [CachedImage] = []
        try reader.query { connection in
            typealias S = IndexSchema.Sources
            let sources = try connection.statement("SELECT \(S.source) FROM \(S.table)")
            var identifiers: [String] = []
            while try sources.step() { identifiers.append(sources.text(S.source)) }
            return identifiers
        }.forEach { variants += try reader.images(for: SourceIdentifier(verbatim: $0)) }
        let writer = BundleWriter(bundleURL: url)
        var bytes = 0
        let sizeOnly = Measurement.seconds {
            for variant in variants where !writer.hasBlob(sha256: variant.sha256, format: variant.format,
                                                           byteCount: variant.byteCount) {
                print("size check failed: \(variant.cacheKey)")
            }
        }
        let hashed = Measurement.seconds {
            for variant in variants {
                bytes += variant.byteCount
                if !writer.hasIntactBlob(sha256: variant.sha256, format: variant.format, byteCount: variant.byteCount) {
                    print("damaged: \(variant.cacheKey)")
                }
            }
        }
        print("reuse check over \(variants.count) variants (\(Measurement.format(Double(bytes) / 1e6)) MB): "
              + "size only \(Measurement.format(sizeOnly, 3)) s, size + SHA-256 \(Measurement.format(hashed, 3)) s "
              + "(+\(Measurement.format(hashed - sizeOnly, 3)) s, one thread)")
    }
}
