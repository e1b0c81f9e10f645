import Foundation
import Testing
import WarmCache
import WarmCacheBuilder
import WarmCacheTestSupport

/// An original damaged in the cache (truncated, or the same length with other bytes) is
/// detected and downloaded again, unconditionally, and the bundle comes out right.
@Suite struct CorruptedOriginalTests {
    /// Where the originals cache keeps a source's bytes (see `OriginalsCache`).
    static func originalFile(cache: URL, url: URL) -> URL {
        let name = ContentHash.sha256(Data(SourceIdentifier(url.absoluteString).rawValue.utf8))
        return cache.appendingPathComponent("originals/\(name.prefix(2))/\(name).orig")
    }

    @Test func aTruncatedOrAlteredCachedOriginalIsRefetched() async throws {
        let images = try SourceImages.distinct(3)
        let routes = SourceImages.routes(images, under: "c")
        try await withWorld(routes: routes) { scratch, server in
            let urls = (0..<3).map { server.url("/c/\($0)") }
            let cache = scratch.path("cache")
            let manifest = try scratch.write(Manifests.yaml(urls: urls), to: "manifest.yml")
            _ = try await Warm.run(manifest, options: Warm.options(cache: cache)).published()

            // Source 0: truncated to half. Source 1: same length, one byte flipped.
            let truncated = Self.originalFile(cache: cache, url: urls[0])
            let altered = Self.originalFile(cache: cache, url: urls[1])
            #expect(try Data(contentsOf: truncated) == Data(images[0].bytes), "the cache layout changed")
            let handle = try FileHandle(forWritingTo: truncated)
            try handle.truncate(atOffset: UInt64(images[0].bytes.count / 2))
            try handle.close()
            var bytes = try Data(contentsOf: altered)
            bytes[bytes.count / 2] ^= 0xFF
            try bytes.write(to: altered)

            server.resetStatistics()
            let report = try await Warm.run(manifest, options: Warm.options(cache: cache)).published()
            #expect(report.status == .ok)
            for index in 0..<2 {
                let requests = server.requests(for: "/c/\(index)")
                #expect(requests.count == 1)
                #expect(requests.first?.header("If-None-Match") == nil, "a damaged original was revalidated")
                #expect(report.source(urls[index])?.status == .fetched)
            }
            #expect(server.requests(for: "/c/2").first?.header("If-None-Match") == "\"c2\"")
            #expect(report.source(urls[2])?.status == .revalidated)
            // Refetched bytes are the same original: its variants are reused, not re-encoded.
            #expect(report.totals.variantsEncoded == 0)

            #expect(try Data(contentsOf: truncated) == Data(images[0].bytes))
            #expect(try Data(contentsOf: altered) == Data(images[1].bytes))
            let bundleURL = scratch.path("Out/Images.warmcache")
            #expect(try BundleVerifier(bundleURL: bundleURL).verify().isValid)
            let bundle = try CacheBundle(contentsOf: bundleURL)
            for (url, image) in zip(urls, images) {
                try BundleChecks.checkVariants(in: bundle, source: SourceIdentifier(url.absoluteString),
                                               sourceSize: image.pixelSize, expectedCount: Manifests.variantsPerSource)
            }
        }
    }
}
