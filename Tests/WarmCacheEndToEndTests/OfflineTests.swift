import Foundation
import Testing
import WarmCache
import WarmCacheBuilder
import WarmCacheTestSupport

/// `offline` builds from the originals cache without touching the network, and a source
/// that was never fetched fails with a message that says so.
@Suite struct OfflineTests {
    @Test func offlineRunUsesTheCacheAndFailsClearlyForANeverFetchedSource() async throws {
        let images = try SourceImages.distinct(3)
        let routes = SourceImages.routes(images, under: "o")
        try await withWorld(routes: routes) { scratch, server in
            let urls = (0..<3).map { server.url("/o/\($0)") }
            let cache = scratch.path("cache")
            let online = try scratch.write(Manifests.yaml(urls: Array(urls.prefix(2))), to: "online.yml")
            _ = try await Warm.run(online, options: Warm.options(cache: cache)).published()
            server.resetStatistics()

            // Offline with everything cached: no request at all, nothing re-encoded.
            let report = try await Warm.run(online, options: Warm.options(cache: cache, offline: true)).published()
            #expect(report.status == .ok)
            #expect(report.totals.reusedFromCache == 2)
            #expect(report.totals.variantsEncoded == 0)
            #expect(server.totalRequestCount == 0)

            // A third source, never fetched: it fails and says why; the others are published.
            let grown = try scratch.write(Manifests.yaml(urls: urls), to: "grown.yml")
            let partial = try await Warm.run(grown, options: Warm.options(cache: cache, offline: true)).published()
            #expect(partial.status == .partial)
            #expect(partial.totals.sourcesOK == 2)
            let failed = try #require(partial.source(urls[2]))
            #expect(failed.status == .failed)
            #expect(failed.failure?.kind == .offline)
            let message = failed.failure?.message ?? ""
            #expect(failed.location == urls[2].absoluteString)
            #expect(message.contains("never downloaded"), "\(message)")
            #expect(message.contains("--offline"), "\(message)")
            #expect(server.totalRequestCount == 0)

            let bundle = try CacheBundle(contentsOf: scratch.path("Out/Images.warmcache"))
            #expect(bundle.info.sourceCount == 2)
            for index in 0..<2 {
                try BundleChecks.checkVariants(in: bundle, source: SourceIdentifier(urls[index].absoluteString),
                                               sourceSize: images[index].pixelSize,
                                               expectedCount: Manifests.variantsPerSource)
            }

            // Offline and strict: the missing source fails the run.
            let strict = try await Warm.run(grown, options: Warm.options(cache: cache, strict: true, offline: true))
            #expect(strict.failure?.kind == .strictFailure)

            // Offline with an empty cache: nothing can be built.
            let empty = try await Warm.run(grown, output: scratch.path("Other/Images.warmcache"),
                                           options: Warm.options(cache: scratch.path("empty-cache"), offline: true))
            #expect(empty.failure?.kind == .nothingWritten)
            #expect(server.totalRequestCount == 0)
        }
    }
}
