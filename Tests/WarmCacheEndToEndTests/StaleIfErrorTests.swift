import Foundation
import Testing
import WarmCache
import WarmCacheBuilder
import WarmCacheTestSupport

/// Issue 6: when the server is down on a later run, cached originals are used with a warning and
/// the bundle stays complete; with `strict` the run fails and the bundle is left as it was.
@Suite struct StaleIfErrorTests {
    static let count = 4

    /// Warms `count` sources once, then stops the server. Returns the manifest and the cache.
    private func warmThenStopServer(_ scratch: Scratch) async throws -> (manifest: URL, urls: [URL], images: [SourceImage]) {
        let images = try SourceImages.distinct(Self.count)
        var routes: [String: FixtureRoute] = [:]
        for (index, image) in images.enumerated() {
            routes["/s/\(index)"] = .image(image.bytes, contentType: image.contentType, etag: "\"s\(index)\"")
        }
        let server = try await FixtureServer.start(routes: routes)
        let urls = (0..<Self.count).map { server.url("/s/\($0)") }
        let manifest = try scratch.write(Manifests.yaml(urls: urls), to: "manifest.yml")
        let result = try await Warm.run(manifest, options: Warm.options(cache: scratch.path("cache")))
        try await server.shutdown()
        let report = try result.published()
        #expect(report.totals.fetched == Self.count)
        return (manifest, urls, images)
    }

    @Test func serverDownUsesCachedOriginalsWithAWarning() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let (manifest, urls, images) = try await warmThenStopServer(scratch)
        let bundleURL = scratch.path("Out/Images.warmcache")
        let before = snapshot(of: bundleURL)

        let report = try await Warm.run(manifest, options: Warm.options(cache: scratch.path("cache"))).published()
        #expect(report.status == .ok)
        #expect(report.totals.sourcesOK == Self.count)
        #expect(report.totals.reusedFromCache == Self.count)
        #expect(report.totals.variantsEncoded == 0)
        #expect(report.warnings.count == Self.count)
        for url in urls {
            let source = try #require(report.source(url))
            #expect(source.status == .cached)
            #expect(source.error?.contains("revalidation failed") == true, "\(source.error ?? "no warning")")
            #expect(report.warnings.contains { $0.hasPrefix(url.absoluteString) && $0.contains("using the cached original") },
                    "no warning for \(url): \(report.warnings)")
        }
        // Nothing was lost: the same bundle, complete and valid.
        let after = snapshot(of: bundleURL)
        #expect(after == before, "\(differences(before, after))")
        #expect(try BundleVerifier(bundleURL: bundleURL).verify().isValid)
        let bundle = try CacheBundle(contentsOf: bundleURL)
        for (url, image) in zip(urls, images) {
            try BundleChecks.checkVariants(in: bundle, source: SourceIdentifier(url.absoluteString),
                                           sourceSize: image.pixelSize, expectedCount: Manifests.variantsPerSource)
        }
    }

    @Test func serverDownWithStrictFailsAndKeepsTheBundle() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let (manifest, urls, _) = try await warmThenStopServer(scratch)
        let bundleURL = scratch.path("Out/Images.warmcache")
        let before = snapshot(of: bundleURL)

        let result = try await Warm.run(manifest, options: Warm.options(cache: scratch.path("cache"), strict: true))
        let error = try #require(result.failure, "a strict run against a dead server published")
        #expect(error.kind == .strictFailure)
        #expect(error.report?.totals.sourcesFailed == Self.count)
        for url in urls {
            #expect(error.report?.source(url)?.error?.contains(url.absoluteString) == true, "\(url)")
        }
        let after = snapshot(of: bundleURL)
        #expect(after == before, "\(differences(before, after))")
    }
}
