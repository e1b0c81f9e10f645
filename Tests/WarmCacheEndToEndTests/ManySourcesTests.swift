import Foundation
import Testing
import WarmCache
import WarmCacheBuilder
import WarmCacheTestSupport

/// A cold run over 30 remote sources (ETags, redirects, one URL listed by two entries)
/// publishes a bundle in which every variant has the right size and format and decodes.
@Suite struct ManySourcesTests {
    static let count = 30

    @Test func thirtySourcesWithRedirectsAndADuplicateEntryAllLandInTheBundle() async throws {
        let images = try SourceImages.distinct(Self.count)
        func path(_ index: Int) -> String { "/img/\(index).\(index % 2 == 0 ? "jpg" : "png")" }
        var routes: [String: FixtureRoute] = [:]
        for (index, image) in images.enumerated() {
            routes[path(index)] = .image(image.bytes, contentType: image.contentType, etag: "\"v1-\(index)\"")
        }
        // 28 is listed under an old URL that redirects (relative Location); 29 through two hops,
        // the last one absolute.
        routes["/old/28.jpg"] = .redirect(status: 301, location: path(28))
        routes["/old/29.png"] = .redirect(status: 302, location: "/hop/29.png")

        try await withWorld(routes: routes) { scratch, server in
            server.setRoute("/hop/29.png", .redirect(status: 307, location: server.url(path(29)).absoluteString))
            var listed = (0..<Self.count).map { server.url(path($0)) }
            listed[28] = server.url("/old/28.jpg")
            listed[29] = server.url("/old/29.png")

            var yaml = """
                version: 1
                output: Out/Images.warmcache
                defaults:
                  placeholder: thumbhash
                \(Manifests.presetBlock(extra: "  tiny: { width: 32, formats: [avif], effort: 0 }"))
                \(Manifests.fastFetch)
                images:
                  - url: \(listed[0])
                    presets: [thumb]
                  - url: \(listed[1])
                    presets: [tiny]
                  - url: \(listed[0])
                    presets: [card]
                  - urls:

                """
            for url in listed.dropFirst() { yaml += "      - \(url)\n" }
            yaml += "    presets: [thumb, card]\n"
            let manifest = try scratch.write(yaml, to: "manifest.yml")

            let report = try await Warm.run(manifest, options: Warm.options(cache: scratch.path("cache"))).published()

            #expect(report.status == .ok)
            #expect(report.totals.sources == Self.count)
            #expect(report.totals.sourcesOK == Self.count)
            #expect(report.totals.fetched == Self.count)
            #expect(report.failures.isEmpty, "\(report.failures.map { $0.failure?.message ?? "" })")
            let expectedVariants = Self.count * Manifests.variantsPerSource + 1
            #expect(report.totals.variants == expectedVariants)
            #expect(report.totals.variantsEncoded == expectedVariants)
            #expect(report.totals.bytesDownloaded == images.reduce(0) { $0 + $1.bytes.count })

            // One request per image, although source 0 is listed by two entries; one per hop.
            for index in 0..<Self.count {
                #expect(server.requestCount(for: path(index)) == 1, "requests for \(path(index))")
            }
            #expect(server.requestCount(for: "/old/28.jpg") == 1)
            #expect(server.requestCount(for: "/old/29.png") == 1)
            #expect(server.requestCount(for: "/hop/29.png") == 1)

            let bundleURL = scratch.path("Out/Images.warmcache")
            let verification = try BundleVerifier(bundleURL: bundleURL).verify()
            #expect(verification.isValid, "\(verification.problems)")
            #expect(verification.warnings.isEmpty, "\(verification.warnings)")

            let bundle = try CacheBundle(contentsOf: bundleURL)
            #expect(bundle.info.sourceCount == Self.count)
            #expect(bundle.info.variantCount == expectedVariants)
            for (index, url) in listed.enumerated() {
                // Redirected sources are stored under the URL the manifest lists.
                let identifier = SourceIdentifier(url.absoluteString)
                #expect(try bundle.contains(identifier), "\(url)")
                let variants = try BundleChecks.checkVariants(
                    in: bundle, source: identifier, sourceSize: images[index].pixelSize,
                    expectedCount: Manifests.variantsPerSource + (index == 1 ? 1 : 0))
                #expect(Set(variants.map(\.format)) == (index == 1 ? [.webp, .jpeg, .png, .avif] : [.webp, .jpeg, .png]))

                let thumb = try #require(try bundle.bestImage(for: url, size: PointSize(width: 48, height: 48), scale: 1,
                                                              accepting: [.webp], fit: .cover))
                #expect(thumb.format == .webp)
                #expect(thumb.pixelSize == PixelSize(width: 48, height: 48))
                let card = try #require(try bundle.bestImage(for: url, size: PointSize(width: 100, height: 0), scale: 2,
                                                             accepting: [.png], preset: "card"))
                #expect(card.format == .png)
                #expect(card.pixelSize.width == min(200, images[index].pixelSize.width))

                let placeholder = try bundle.placeholder(for: identifier)
                #expect(placeholder?.thumbHash != nil, "thumbhash of \(url)")
                #expect(placeholder?.averageColor != nil, "average colour of \(url)")

                let sourceReport = try #require(report.source(url))
                #expect(sourceReport.status == .fetched)
                #expect(sourceReport.originalBytes == images[index].bytes.count)
                #expect(sourceReport.variants.allSatisfy { $0.action == .encoded })
            }
            // The entry-merged source carries both entries' presets.
            let first = try bundle.images(for: SourceIdentifier(listed[0].absoluteString))
            #expect(Set(first.compactMap { $0.key?.spec.fit.kind }) == [.cover, .inside])
        }
    }
}
