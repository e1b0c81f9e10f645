import Foundation
import Testing
import WarmCache
import WarmCacheBuilder
import WarmCacheTestSupport

/// The same manifest and originals give a byte-identical bundle, whatever the imaging and
/// download concurrency and wherever the cache lives.
@Suite struct DeterminismTests {
    @Test func coldRunsWithDifferentConcurrencyAndCachesGiveByteIdenticalBundles() async throws {
        let images = try SourceImages.distinct(12)
        let routes = SourceImages.routes(images, under: "d")
        try await withWorld(routes: routes) { scratch, server in
            let urls = (0..<images.count).map { server.url("/d/\($0)") }
            let defaults = """
                defaults:
                  placeholder: [thumbhash, blurhash]
                """
            let manifest = try scratch.write(Manifests.yaml(urls: urls, defaults: defaults), to: "manifest.yml")
            let serial = try await Warm.run(manifest, output: scratch.path("A/Images.warmcache"),
                                            options: Warm.options(cache: scratch.path("cache-a"), imaging: 1, fetch: 1))
                .published()
            // fetch concurrency 1 means one request at a time.
            #expect(server.maxConcurrentRequests == 1)
            server.resetStatistics()
            let parallel = try await Warm.run(manifest, output: scratch.path("B/Images.warmcache"),
                                              options: Warm.options(cache: scratch.path("cache-b"), imaging: 4, fetch: 16))
                .published()
            #expect(serial.totals.variantsEncoded == images.count * Manifests.variantsPerSource)
            #expect(parallel.totals.variantsEncoded == images.count * Manifests.variantsPerSource)
            #expect(serial.totals.fetched == images.count && parallel.totals.fetched == images.count)

            let a = snapshot(of: scratch.path("A/Images.warmcache"))
            let b = snapshot(of: scratch.path("B/Images.warmcache"))
            #expect(a.keys.contains("index.sqlite"))
            #expect(a.count > images.count)
            #expect(a == b, "bundles differ: \(differences(a, b))")
        }
    }
}
