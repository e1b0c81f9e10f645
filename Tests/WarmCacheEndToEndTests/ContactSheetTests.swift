import Foundation
import Testing
import WarmCache
import WarmCacheBuilder
import WarmCacheImaging
import WarmCacheTestSupport

/// The contact sheet (`inspect --html`, `warm --html`), opened in a real headless Chromium: every
/// image decodes, the counts are the index's, placeholders are drawn as the Swift decoders draw
/// them, and the page is not blank in light or dark mode. Screenshots stay in .build/test-artifacts.
@Suite(.serialized) struct ContactSheetTests {
    @Test func warmWritesAPageOfEveryImageAndTheFailures() async throws {
        let images = try SourceImages.distinct(3)
        let routes: [String: FixtureRoute] = [
            "/a.jpg": .image(images[0].bytes, contentType: images[0].contentType),
            "/b.png": .image(images[1].bytes, contentType: images[1].contentType),
            "/c.jpg": .image(images[2].bytes, contentType: images[2].contentType),
            "/gone.jpg": .status(404),
        ]
        try await withWorld(routes: routes) { scratch, server in
            let urls = ["/a.jpg", "/b.png", "/c.jpg", "/gone.jpg"].map { server.url($0) }
            try scratch.write(Manifests.yaml(
                urls: urls, presets: ["thumb", "card", "hero"],
                extraPresets: "  hero: { width: 64, formats: [avif] }",
                defaults: "defaults:\n  placeholder: [thumbhash, blurhash]"), to: "manifest.yml")

            let warm = try await CLI.run(["warm", "manifest.yml", "--cache-dir", "cache", "--html", "pages/sheet.html"],
                                         in: scratch.url)
            #expect(warm.status == 3, "one source fails with a 404: \(warm)")
            #expect(warm.stdout.contains("Wrote the contact sheet pages/sheet.html"), "\(warm)")
            let page = scratch.path("pages/sheet.html")
            let html = try String(contentsOf: page, encoding: .utf8)
            #expect(!html.contains("<script src") && !html.contains("<link") && !html.contains("@import")
                    && !html.contains("url(http"), "no external assets")
            #expect(html.contains("../Out/Images.warmcache/objects/"), "blobs linked relative to the page")

            // What the index holds, read the way an app reads it.
            let bundle = try CacheBundle(contentsOf: scratch.path("Out/Images.warmcache"))
            var expectedImages: [String: PixelSize] = [:]
            var placeholders: [ImagePlaceholder] = []
            for url in urls.prefix(3) {
                for image in try bundle.images(for: SourceIdentifier(url.absoluteString)) {
                    expectedImages["../Out/Images.warmcache/"
                        + BundleFormat.objectPath(sha256: image.sha256, format: image.format)] = image.pixelSize
                }
                placeholders.append(try #require(try bundle.placeholder(for: url)))
            }
            let variantCount = 3 * (Manifests.variantsPerSource + 1)
            #expect(expectedImages.count <= variantCount && bundle.info.variantCount == variantCount)

            let report = try await Browser.open(page, screenshotName: "contact-sheet", filter: "b.png", dark: true)
            print("contact sheet: ready in \(report.readySeconds) s, images in \(report.imagesSeconds) s, "
                + "screenshots \(report.screenshot), \(report.darkScreenshot ?? "-")")
            #expect(report.consoleErrors.isEmpty, "\(report.consoleErrors)")

            // Counts match the index; every image element decoded at the size the index records.
            #expect(report.matchingSources == 3 && report.shownSources == 3 && report.rows == 3)
            #expect(report.shownVariants == variantCount)
            #expect(report.images.count == variantCount)
            #expect(report.brokenFigures == 0)
            for image in report.images {
                #expect(image.naturalWidth > 0 && image.naturalHeight > 0, "\(image.format) \(image.src) did not decode")
                let expected = try #require(expectedImages[image.src], "\(image.src) is not a blob of the index")
                #expect(image.naturalWidth == expected.width && image.naturalHeight == expected.height, "\(image.src)")
            }
            #expect(Set(report.images.map(\.src)) == Set(expectedImages.keys))
            #expect(Set(report.images.map(\.format)) == ["jpeg", "png", "webp", "avif"])
            #expect(report.summary.contains("3 sources") && report.summary.contains("\(variantCount) variants"),
                    "\(report.summary)")
            for name in ["jpeg", "webp", "png", "avif", "thumb", "card", "hero"] {
                #expect(report.totals.contains(name), "totals lack \(name): \(report.totals)")
            }

            // The run's failure, with its reason.
            #expect(report.failureRows == 1)
            #expect(report.failuresText.contains("/gone.jpg") && report.failuresText.contains("404"),
                    "\(report.failuresText)")

            // Placeholders drawn by the page's decoders look like the Swift decoders' output.
            #expect(report.placeholders.count == 6)
            for (index, drawn) in report.placeholders.enumerated() {
                #expect(drawn.opaque == drawn.width * drawn.height && drawn.spread > 0, "\(drawn)")
                let placeholder = placeholders[index / 2]
                let reference: [UInt8]
                if drawn.kind == "thumbhash" {
                    let hash = try #require(placeholder.thumbHash)
                    let decoded = try #require(ThumbHash.decode(hash))
                    #expect(decoded.width == drawn.width && decoded.height == drawn.height)
                    reference = decoded.rgba
                } else {
                    let hash = try #require(placeholder.blurHash)
                    reference = try #require(BlurHash.decode(hash, width: drawn.width, height: drawn.height))
                }
                let mean = Self.meanRGB(reference)
                for channel in 0..<3 {
                    #expect(abs(mean[channel] - drawn.mean[channel]) < 1, "\(drawn.kind) channel \(channel)")
                }
            }

            // Filtering by preset and format shows only those variants (3 sources each): thumb is
            // webp + jpeg, card jpeg + png at 1x and 2x, hero one avif.
            #expect(report.byPreset == ["card": [3, 12], "hero": [3, 3], "thumb": [3, 6]], "\(report.byPreset)")
            #expect(report.byFormat == ["avif": [3, 3], "jpeg": [3, 9], "png": [3, 6], "webp": [3, 3]],
                    "\(report.byFormat)")

            // Sorting by bytes and filtering by identifier.
            #expect(report.bytesDescending == report.bytesDescending.sorted(by: >) && report.bytesDescending.count == 3)
            #expect(report.filteredSources == 1)
            #expect(report.filteredIdentifiers == [urls[1].absoluteString])
            // The filter hides the one failure: the heading says so instead of counting it over an empty table.
            #expect(report.filteredFailureRows == 0)
            #expect(report.filteredFailuresText == "No failures match the filter (1 failure in this run)",
                    "\(report.filteredFailuresText ?? "-")")
            #expect(report.hash == "#q=b.png" && report.sourcesAfterReload == 1, "\(report.hash ?? "-")")

            // Not blank, in light and dark.
            #expect(try await Browser.deviation(ofPNG: report.screenshot) > 10)
            #expect(report.darkBackground == "rgb(22, 22, 24)", "\(report.darkBackground ?? "-")")
            let darkScreenshot = try #require(report.darkScreenshot)
            #expect(try await Browser.deviation(ofPNG: darkScreenshot) > 10)

            // A run that writes nothing (--strict) still writes the page of its failures, and a
            // page path that is a folder is refused before any work.
            let strict = try await CLI.run(["warm", "manifest.yml", "--cache-dir", "cache", "--strict", "-q",
                                            "--html", "pages/strict.html"], in: scratch.url)
            #expect(strict.status == 4, "\(strict)")
            let strictPage = try String(contentsOf: scratch.path("pages/strict.html"), encoding: .utf8)
            #expect(strictPage.contains("\"sources\":[]") && strictPage.contains("/gone.jpg"))
            let folder = try await CLI.run(["warm", "manifest.yml", "--cache-dir", "cache", "--html", "pages"],
                                           in: scratch.url)
            #expect(folder.status == 64 && folder.stderr.contains("--html 'pages' is a folder"), "\(folder)")

            // inspect --html writes the same page from the bundle alone (no failures to show).
            let inspect = try await CLI.run(["inspect", "Out/Images.warmcache", "--html", "Out/sheet.html"],
                                            in: scratch.url)
            #expect(inspect.status == 0, "\(inspect)")
            let inspected = try String(contentsOf: scratch.path("Out/sheet.html"), encoding: .utf8)
            #expect(inspected.contains("\"objects\":\"Images.warmcache/objects/\""))
            #expect(inspected.contains("\"failures\":[]"))
        }
    }

    /// 10,000 sources: the page stays a few megabytes, opens on one page of rows with lazy images,
    /// and filtering and paging work over all of them. Figures are printed, not asserted.
    @Test func tenThousandSourcesOpenOnePageAtATime() async throws {
        let scratch = try Scratch("contact-sheet-scale")
        defer { scratch.remove() }
        let bundleURL = scratch.path("Images.warmcache")
        let count = 10_000
        try Self.writeSyntheticBundle(at: bundleURL, sources: count)

        let started = Date()
        let page = scratch.path("sheet.html")
        try ContactSheet(bundleURL: bundleURL).write(to: page)
        let seconds = Date().timeIntervalSince(started)
        let size = try #require(try FileManager.default.attributesOfItem(atPath: page.path)[.size] as? NSNumber).intValue
        print("contact sheet of \(count) sources: \(size) bytes, written in \(String(format: "%.2f", seconds)) s")
        #expect(size < 6_000_000, "the page should stay a few megabytes: \(size) bytes")

        let report = try await Browser.open(page, screenshotName: "contact-sheet-10000", filter: "photos/0042")
        print("contact sheet of \(count) sources: ready in \(report.readySeconds) s, first page's images in "
            + "\(report.imagesSeconds) s, screenshot \(report.screenshot)")
        #expect(report.consoleErrors.isEmpty, "\(report.consoleErrors)")
        #expect(report.matchingSources == count)
        #expect(report.shownSources == 50 && report.rows == 50, "one page of rows, not all of them")
        #expect(report.images.count == 50 * 3 && report.images.allSatisfy { $0.naturalWidth > 0 })
        #expect(report.summary.contains("10,000 sources"), "\(report.summary)")
        #expect(report.filteredSources == 10, "photos/00420 … photos/00429")
        #expect(report.sourcesAfterReload == 10)
        #expect(try await Browser.deviation(ofPNG: report.screenshot) > 10)
    }

    private static func meanRGB(_ rgba: [UInt8]) -> [Double] {
        var sums = [0.0, 0.0, 0.0]
        for index in stride(from: 0, to: rgba.count, by: 4) {
            for channel in 0..<3 { sums[channel] += Double(rgba[index + channel]) }
        }
        return sums.map { $0 / Double(rgba.count / 4) }
    }

    /// A bundle of `sources` sources with three variants each (JPEG, PNG, WebP) sharing three
    /// real blobs: the index is the size of a real one, the work is a second's.
    private static func writeSyntheticBundle(at url: URL, sources count: Int) throws {
        let decoded = try SourceImages.engine.open(Data(try SourceImages.fixture("chelsea.jpg").bytes), name: "chelsea")
        let specs = [VariantSpec(width: 120, height: nil, format: .jpeg, quality: 80),
                     VariantSpec(width: 64, height: 64, fit: .cover(.centre), format: .png),
                     VariantSpec(width: 96, height: nil, scale: 2, format: .webp, quality: 75)]
        let rendered = try decoded.render(specs, placeholder: .all)
        let writer = BundleWriter(bundleURL: url)
        try writer.prepare()
        let blobs = try rendered.variants.map { try writer.storeBlob($0.data, format: $0.spec.format) }
        var contents = BundleContents()
        for index in 0..<count {
            let identifier = SourceIdentifier(String(format: "https://img.example.com/photos/%05d.jpg", index))
            contents.sources.append(.init(identifier: identifier, contentSHA256: String(repeating: "0", count: 64),
                                          format: "jpeg", pixelSize: decoded.info.pixelSize,
                                          byteCount: 20_000 + index, placeholder: rendered.placeholder))
            for (variant, blob) in zip(rendered.variants, blobs) {
                contents.variants.append(.init(
                    key: VariantKey(source: identifier, spec: variant.spec),
                    pixelSize: PixelSize(width: variant.pixelWidth, height: variant.pixelHeight),
                    byteCount: blob.byteCount, blobSHA256: blob.sha256, hasAlpha: variant.hasAlpha,
                    presets: [variant.spec.format == .png ? "thumb" : "card"]))
            }
        }
        _ = try writer.commit(contents)
    }
}
