import Foundation
import Testing
import WarmCache
import WarmCacheBuilder
import WarmCacheTestSupport

/// A second run revalidates with conditional requests and encodes nothing; a changed
/// image re-encodes only its own variants; servers without ETags are revalidated with
/// `If-Modified-Since`.
@Suite struct IncrementalRunTests {
    static let count = 6

    @Test func secondRunSendsIfNoneMatchAndEncodesNothingThenOnlyAChangedImageIsReEncoded() async throws {
        let images = try SourceImages.distinct(Self.count)
        let replacement = try SourceImages.distinct(1, offset: 50)[0]
        var routes: [String: FixtureRoute] = [:]
        for (index, image) in images.enumerated() {
            routes["/p/\(index)"] = .image(image.bytes, contentType: image.contentType, etag: "\"v1-\(index)\"")
        }
        try await withWorld(routes: routes) { scratch, server in
            let urls = (0..<Self.count).map { server.url("/p/\($0)") }
            let manifest = try scratch.write(Manifests.yaml(urls: urls), to: "manifest.yml")
            let options = Warm.options(cache: scratch.path("cache"))
            let bundleURL = scratch.path("Out/Images.warmcache")
            let perSource = Manifests.variantsPerSource

            let first = try await Warm.run(manifest, options: options).published()
            #expect(first.totals.fetched == Self.count)
            #expect(first.totals.variantsEncoded == Self.count * perSource)
            let afterFirst = snapshot(of: bundleURL)
            for index in 0..<Self.count {
                #expect(server.requests(for: "/p/\(index)").first?.header("If-None-Match") == nil)
            }

            // Second run: conditional requests, 304s, nothing encoded, the same bundle.
            server.resetStatistics()
            let second = try await Warm.run(manifest, options: options).published()
            #expect(second.status == .ok)
            #expect(second.totals.revalidated == Self.count)
            #expect(second.totals.fetched == 0)
            #expect(second.totals.bytesDownloaded == 0)
            #expect(second.totals.variantsEncoded == 0)
            #expect(second.totals.variantsReused == Self.count * perSource)
            #expect(second.sources.allSatisfy { $0.status == .revalidated })
            #expect(second.sources.flatMap(\.variants).allSatisfy { $0.action == .reused })
            for index in 0..<Self.count {
                let requests = server.requests(for: "/p/\(index)")
                #expect(requests.count == 1)
                #expect(requests.first?.header("If-None-Match") == "\"v1-\(index)\"", "request for /p/\(index)")
            }
            let afterSecond = snapshot(of: bundleURL)
            #expect(afterSecond == afterFirst, "\(differences(afterFirst, afterSecond))")

            // Third run: one image changed upstream (new bytes, new ETag, new size).
            server.setRoute("/p/2", .image(replacement.bytes, contentType: replacement.contentType, etag: "\"v2-2\""))
            server.resetStatistics()
            let third = try await Warm.run(manifest, options: options).published()
            #expect(third.status == .ok)
            #expect(third.totals.fetched == 1)
            #expect(third.totals.revalidated == Self.count - 1)
            #expect(third.totals.variantsEncoded == perSource)
            #expect(third.totals.variantsReused == (Self.count - 1) * perSource)
            #expect(third.totals.blobsRemoved > 0)
            for (index, url) in urls.enumerated() {
                let source = try #require(third.source(url))
                if index == 2 {
                    #expect(source.status == .fetched)
                    #expect(source.variants.allSatisfy { $0.action == .encoded })
                } else {
                    #expect(source.status == .revalidated)
                    #expect(source.variants.allSatisfy { $0.action == .reused }, "source \(index)")
                }
            }
            #expect(server.requests(for: "/p/2").first?.header("If-None-Match") == "\"v1-2\"")

            let verification = try BundleVerifier(bundleURL: bundleURL).verify()
            #expect(verification.isValid && verification.warnings.isEmpty, "\(verification.problems) \(verification.warnings)")
            let bundle = try CacheBundle(contentsOf: bundleURL)
            try BundleChecks.checkVariants(in: bundle, source: SourceIdentifier(urls[2].absoluteString),
                                           sourceSize: replacement.pixelSize, expectedCount: perSource)
            for index in [0, 1, 3, 4, 5] {
                try BundleChecks.checkVariants(in: bundle, source: SourceIdentifier(urls[index].absoluteString),
                                               sourceSize: images[index].pixelSize, expectedCount: perSource)
            }

            // Fourth run: a source dropped from the manifest leaves the bundle with its blobs.
            try scratch.write(Manifests.yaml(urls: Array(urls.dropLast())), to: "manifest.yml")
            let fourth = try await Warm.run(manifest, options: options).published()
            #expect(fourth.totals.sources == Self.count - 1)
            #expect(fourth.totals.variantsEncoded == 0)
            #expect(fourth.totals.blobsRemoved == perSource)
            let smaller = try CacheBundle(contentsOf: bundleURL)
            #expect(try !smaller.contains(SourceIdentifier(urls[Self.count - 1].absoluteString)))
            #expect(smaller.info.variantCount == (Self.count - 1) * perSource)
            #expect(try BundleVerifier(bundleURL: bundleURL).verify().warnings.isEmpty)
        }
    }

    /// Three distinct images served under `/<prefix>/`, warmed once into `Out/Images.warmcache`
    /// with a cache directory; `body` gets what a later warm of the same manifest needs.
    private func afterOneWarm(under prefix: String, _ label: String = #function,
                              _ body: (_ manifest: URL, _ options: WarmOptions, _ bundleURL: URL) async throws -> Void)
        async throws {
        let routes = SourceImages.routes(try SourceImages.distinct(3), under: prefix)
        try await withWorld(label, routes: routes) { scratch, server in
            let urls = (0..<3).map { server.url("/\(prefix)/\($0)") }
            let manifest = try scratch.write(Manifests.yaml(urls: urls), to: "manifest.yml")
            let options = Warm.options(cache: scratch.path("cache"))
            _ = try await Warm.run(manifest, options: options).published()
            try await body(manifest, options, scratch.path("Out/Images.warmcache"))
        }
    }

    @Test func aDeletedBundleIsRebuiltIdenticallyFromAWarmCache() async throws {
        try await afterOneWarm(under: "r") { manifest, options, bundleURL in
            let original = snapshot(of: bundleURL)

            // A fresh checkout with a restored cache: render records name blobs that are gone,
            // so everything is encoded again (originals are only revalidated).
            try FileManager.default.removeItem(at: bundleURL)
            let rebuilt = try await Warm.run(manifest, options: options).published()
            #expect(rebuilt.totals.revalidated == 3)
            #expect(rebuilt.totals.variantsEncoded == 3 * Manifests.variantsPerSource)
            let again = snapshot(of: bundleURL)
            #expect(again == original, "\(differences(original, again))")
        }
    }

    /// A no-op re-warm trusts the index it left in place while the file is untouched (its digest
    /// and stamp are in the cache's records); an index edited since is compared row by row and
    /// published again, as it was.
    @Test func anIndexEditedSinceTheLastWarmIsPublishedAgain() async throws {
        try await afterOneWarm(under: "e") { manifest, options, bundleURL in
            let indexURL = bundleURL.appendingPathComponent("index.sqlite")
            let original = snapshot(of: bundleURL)
            let stamp = try FileManager.default.attributesOfItem(atPath: indexURL.path)[.modificationDate] as? Date

            // Nothing changed: the index is left as it is (not even rewritten).
            let same = try await Warm.run(manifest, options: options).published()
            #expect(same.totals.variantsReused == 3 * Manifests.variantsPerSource)
            #expect(try FileManager.default.attributesOfItem(atPath: indexURL.path)[.modificationDate] as? Date == stamp)

            // Edited in place (as a tool or a bad merge might): the next warm finds it.
            let connection = try SQLiteConnection(path: indexURL.path, readOnly: false)
            try connection.execute("UPDATE variants SET pixel_width = pixel_width + 1")
            connection.close()
            #expect(snapshot(of: bundleURL) != original)
            _ = try await Warm.run(manifest, options: options).published()
            let repaired = snapshot(of: bundleURL)
            #expect(repaired == original, "\(differences(original, repaired))")
        }
    }

    @Test func sourcesDroppedFromTheManifestAreReportedAsRemoved() async throws {
        let images = try SourceImages.distinct(4)
        let routes = SourceImages.routes(images, under: "d")
        try await withWorld(routes: routes) { scratch, server in
            let urls = (0..<4).map { server.url("/d/\($0)") }
            let options = Warm.options(cache: scratch.path("cache"))
            let all = try scratch.write(Manifests.yaml(urls: urls), to: "all.yml")
            let first = try await Warm.run(all, options: options).published()
            #expect(first.removedSources.isEmpty)

            // Two sources leave the manifest; the two that stay are revalidated, not removed.
            let fewer = try scratch.write(Manifests.yaml(urls: [urls[0], urls[2]]), to: "fewer.yml")
            let second = try await Warm.run(fewer, options: options).published()
            #expect(second.totals.revalidated == 2)
            #expect(second.removedSources.sorted() == [urls[1], urls[3]].map { SourceIdentifier($0.absoluteString).rawValue }.sorted())

            // One leaves while another comes back (its blobs went with it, so new ones are stored):
            // the commit that publishes new blobs reports the removed source too.
            let swapped = try scratch.write(Manifests.yaml(urls: [urls[0], urls[1]]), to: "swapped.yml")
            let third = try await Warm.run(swapped, options: options).published()
            #expect(third.totals.variantsEncoded > 0)
            #expect(third.removedSources == [SourceIdentifier(urls[2].absoluteString).rawValue])
        }
    }

    @Test func withinMaxAgeNoRequestIsSent() async throws {
        let image = try SourceImages.fixture("chelsea.jpg")
        let routes: [String: FixtureRoute] = ["/fresh.jpg": .image(image.bytes, contentType: image.contentType, etag: "\"f\"")]
        try await withWorld(routes: routes) { scratch, server in
            let manifest = try scratch.write(Manifests.yaml(urls: [server.url("/fresh.jpg")]), to: "manifest.yml")
            _ = try await Warm.run(manifest, options: Warm.options(cache: scratch.path("cache"))).published()
            let options = WarmOptions(cacheDirectory: scratch.path("cache"), maxAge: 3600)
            let second = try await Warm.run(manifest, options: options).published()
            #expect(server.requestCount(for: "/fresh.jpg") == 1)
            #expect(second.totals.reusedFromCache == 1)
            #expect(second.sources.first?.status == .cached)
            #expect(second.totals.variantsEncoded == 0)
            #expect(second.warnings.isEmpty)
        }
    }

    @Test func withoutAnETagTheSecondRunSendsIfModifiedSince() async throws {
        let image = try SourceImages.fixture("coins.png")
        let modified = Date(timeIntervalSince1970: 1_700_000_000)
        let routes: [String: FixtureRoute] = [
            "/plain.png": .image(image.bytes, contentType: image.contentType, lastModified: modified),
        ]
        try await withWorld(routes: routes) { scratch, server in
            let manifest = try scratch.write(Manifests.yaml(urls: [server.url("/plain.png")]), to: "manifest.yml")
            let options = Warm.options(cache: scratch.path("cache"))
            let first = try await Warm.run(manifest, options: options).published()
            #expect(first.totals.fetched == 1)

            let second = try await Warm.run(manifest, options: options).published()
            let requests = server.requests(for: "/plain.png")
            #expect(requests.count == 2)
            #expect(requests.last?.header("If-Modified-Since") == HTTPDateFormat.string(from: modified))
            #expect(requests.last?.header("If-None-Match") == nil)
            #expect(second.totals.revalidated == 1)
            #expect(second.totals.variantsEncoded == 0)
            #expect(second.totals.variantsReused == Manifests.variantsPerSource)
        }
    }
}
