import Foundation
import Testing
import WarmCache
import WarmCacheBuilder
import WarmCacheTestSupport

/// When the server is down on a later run, cached originals are used with a warning and
/// the bundle stays complete; with `strict` the run fails and the bundle is left as it was.
@Suite struct StaleIfErrorTests {
    static let count = 4

    /// Warms `count` sources once, then stops the server. Returns the manifest and the cache.
    private func warmThenStopServer(_ scratch: Scratch) async throws -> (manifest: URL, urls: [URL], images: [SourceImage]) {
        let images = try SourceImages.distinct(Self.count)
        let routes = SourceImages.routes(images, under: "s")
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
            #expect(source.warnings.first?.contains("revalidation failed") == true, "\(source.warnings)")
            #expect(source.failure == nil)
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

    @Test func serverErrorsAreBridgedButAnImageGoneUpstreamIsAFailure() async throws {
        let images = try SourceImages.distinct(2)
        let routes: [String: FixtureRoute] = [
            "/e/0": .image(images[0].bytes, contentType: images[0].contentType, etag: "\"e0\""),
            "/e/1": .image(images[1].bytes, contentType: images[1].contentType, etag: "\"e1\""),
        ]
        try await withWorld(routes: routes) { scratch, server in
            let urls = [server.url("/e/0"), server.url("/e/1")]
            let manifest = try scratch.write(Manifests.yaml(urls: urls), to: "manifest.yml")
            let options = Warm.options(cache: scratch.path("cache"))
            _ = try await Warm.run(manifest, options: options).published()

            // 503 is transient: the cached original stands in. 404 says the image is gone: no
            // stale copy is served for it.
            server.setRoute("/e/0", .status(503, body: "maintenance"))
            server.setRoute("/e/1", .status(404))
            let report = try await Warm.run(manifest, options: options).published()
            #expect(report.status == .partial)
            #expect(report.source(urls[0])?.status == .cached)
            #expect(report.warnings.count == 1)
            #expect(report.warnings.first?.contains("HTTP 503") == true, "\(report.warnings)")
            let gone = try #require(report.source(urls[1]))
            #expect(gone.status == .failed)
            #expect(gone.failure?.kind == .httpStatus && gone.failure?.httpStatus == 404, "\(String(describing: gone.failure))")
            let bundle = try CacheBundle(contentsOf: scratch.path("Out/Images.warmcache"))
            #expect(try bundle.contains(SourceIdentifier(urls[0].absoluteString)))
            #expect(try !bundle.contains(SourceIdentifier(urls[1].absoluteString)))
        }
    }

    /// The warning dates the cached original by the last `304` that confirmed it, not by its
    /// download (a re-warm does not read confirmations unless `--max-age` asks; the warning does).
    @Test func theWarningDatesTheOriginalByItsLastConfirmation() async throws {
        let images = try SourceImages.distinct(1)
        let routes: [String: FixtureRoute] = [
            "/c/0": .image(images[0].bytes, contentType: images[0].contentType, etag: "\"c0\""),
        ]
        try await withWorld(routes: routes) { scratch, server in
            let url = server.url("/c/0")
            let manifest = try scratch.write(Manifests.yaml(urls: [url]), to: "manifest.yml")
            let options = Warm.options(cache: scratch.path("cache"))
            _ = try await Warm.run(manifest, options: options).published()
            // The warning's date has whole seconds: the confirmation comes a second later at least.
            try await Task.sleep(nanoseconds: 1_100_000_000)
            let confirmedAfter = Date()
            #expect(try await Warm.run(manifest, options: options).published().totals.revalidated == 1)

            server.setRoute("/c/0", .status(503, body: "maintenance"))
            let report = try await Warm.run(manifest, options: options).published()
            let warning = try #require(report.source(url)?.warnings.first)
            let date = try #require(warning.components(separatedBy: " from ").last.flatMap {
                ISO8601DateFormatter().date(from: $0)
            }, "\(warning)")
            #expect(date >= confirmedAfter.addingTimeInterval(-1), "\(warning)")
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
            #expect(error.report?.source(url)?.failure != nil, "\(url)")
        }
        let after = snapshot(of: bundleURL)
        #expect(after == before, "\(differences(before, after))")
    }
}
