import Foundation
import Testing
import WarmCache
import CVipsShim
@testable import WarmCacheImaging

/// Placeholders computed by the engine from real images.
@Suite struct PlaceholderRenderingTests {
    @Test func allKindsFromAPhoto() throws {
        let source = try Fixtures.engine.open(Fixtures.example("chelsea.png"), name: "chelsea.png")
        let placeholder = try source.placeholder(.all)
        let thumbHash = try #require(placeholder.thumbHash)
        let blurHash = try #require(placeholder.blurHash)
        let average = try #require(placeholder.averageColor)
        #expect(thumbHash.count <= 25)
        let ratio = try #require(ThumbHash.aspectRatio(of: thumbHash))
        #expect(abs(ratio - 451.0 / 300) < 0.3)
        #expect(blurHash.count == 28)
        #expect(BlurHash.averageColor(of: blurHash) == average)
        let thumbAverage = try #require(ThumbHash.averageColor(of: thumbHash))
        // ThumbHash averages gamma-encoded values, BlurHash and averageColor linear light: close, not equal.
        #expect(abs(Int(thumbAverage.red) - Int(average.red)) < 30)
        #expect(average.alpha == 255)
    }

    @Test func onlyTheRequestedKinds() throws {
        let source = try Fixtures.engine.open(Fixtures.example("rocket.jpg"), name: "rocket.jpg")
        let placeholder = try source.placeholder(.averageColor)
        #expect(placeholder.averageColor != nil && placeholder.thumbHash == nil && placeholder.blurHash == nil)
        #expect(try source.placeholder([]).isEmpty)
    }

    @Test func portraitImagesUseThreeByFourComponents() throws {
        let portrait = try Fixtures.encode(Fixtures.gradient(width: 60, height: 120), as: .png)
        let placeholder = try Fixtures.engine.open(portrait, name: "portrait").placeholder(.blurHash)
        let hash = try #require(placeholder.blurHash)
        #expect(hash.first == Base83.alphabet[(3 - 1) + (4 - 1) * 9])
    }

    @Test func transparentImagesKeepAlphaInThumbHashAndAverage() throws {
        let source = try Fixtures.engine.open(FormatTests.withAlpha, name: "alpha.png")
        let placeholder = try source.placeholder(.all)
        let average = try #require(placeholder.averageColor)
        #expect(abs(Int(average.alpha) - 128) < 4)
        #expect(average.red > 150)
        let thumbHash = try #require(placeholder.thumbHash)
        let thumbAverage = try #require(ThumbHash.averageRGBA(of: thumbHash))
        #expect(abs(thumbAverage.alpha - 0.5) < 0.1)
    }

    /// The placeholder thumbnail is an area average made in Swift: on photos it agrees with
    /// libvips' Lanczos resample to within a few levels per channel, pixel by pixel on average.
    @Test(arguments: ["chelsea.png", "rocket.jpg", "coffee.png"])
    func theAveragedThumbnailMatchesLibvipsResample(name: String) throws {
        let decoded = try VipsImage.make("load") { out in
            let bytes = try? Fixtures.example(name)
            return bytes?.withUnsafeBytes { wc_load($0.baseAddress, $0.count, out) } ?? -1
        }
        let size = PlaceholderRenderer.thumbnailSize(for: decoded.size)
        let averaged = try PlaceholderThumbnail.rgba(of: decoded, size: size)
        let resampled = try decoded.resized(to: size).rgba8Pixels()
        #expect(averaged.count == resampled.count)
        let meanDifference = zip(averaged, resampled).map { abs(Int($0) - Int($1)) }.reduce(0, +) / averaged.count
        #expect(meanDifference <= 4, "mean difference \(meanDifference) levels")
        #expect(AverageColor.of(rgba: averaged) == AverageColor.of(rgba: resampled)
            || colourDistance(AverageColor.of(rgba: averaged), AverageColor.of(rgba: resampled)) <= 2)
    }

    @Test func theAveragedThumbnailOfGreyAndTransparentPixels() throws {
        // Grey + alpha: the left half transparent (its hidden grey is black), the right half opaque white.
        var pixels: [UInt8] = []
        for _ in 0..<8 {
            for x in 0..<8 { pixels += x < 4 ? [0, 0] : [255, 255] }
        }
        let image = try #require(pixels.withUnsafeBufferPointer { wc_image_from_pixels($0.baseAddress, 8, 8, 2) })
        let thumbnail = try PlaceholderThumbnail.rgba(of: VipsImage(taking: image), size: PixelSize(width: 2, height: 1))
        #expect(thumbnail == [0, 0, 0, 0, 255, 255, 255, 255])
        // A pixel straddling both halves is white at half alpha: the hidden black does not bleed in.
        let one = try PlaceholderThumbnail.rgba(of: VipsImage(taking: pixels.withUnsafeBufferPointer {
            wc_image_from_pixels($0.baseAddress, 8, 8, 2) }!), size: PixelSize(width: 1, height: 1))
        #expect(one == [255, 255, 255, 128])
    }

    /// An image that is not 8-bit sRGB or grey (16-bit RGB here) is converted by libvips first,
    /// then averaged the same way: the thumbnail matches the 8-bit image's to a level.
    @Test func anImageOfAnotherKindIsConvertedThenAveraged() throws {
        let eightBit = Fixtures.gradient(width: 90, height: 60, alpha: true)
        let sixteenBit = try eightBit.converted(to: .rgb16)
        #expect(!sixteenBit.isUChar)
        let size = PixelSize(width: 30, height: 20)
        let direct = try PlaceholderThumbnail.rgba(of: eightBit, size: size)
        let converted = try PlaceholderThumbnail.rgba(of: sixteenBit, size: size)
        #expect(direct.count == converted.count)
        #expect(zip(direct, converted).allSatisfy { abs(Int($0) - Int($1)) <= 1 })
    }

    /// Opaque RGB takes a shorter path; it averages exactly as the same pixels with an opaque
    /// alpha band do, also where output pixels cover uneven spans of input pixels.
    @Test func opaqueRGBAveragesAsWithAnOpaqueAlphaBand() throws {
        let opaque = Fixtures.gradient(width: 97, height: 61)
        let withAlpha = try opaque.addingAlpha()
        for size in [PixelSize(width: 30, height: 20), PixelSize(width: 7, height: 5), PixelSize(width: 97, height: 61)] {
            #expect(try PlaceholderThumbnail.rgba(of: opaque, size: size)
                == PlaceholderThumbnail.rgba(of: withAlpha, size: size))
        }
    }

    private func colourDistance(_ a: RGBAColor, _ b: RGBAColor) -> Int {
        max(abs(Int(a.red) - Int(b.red)), abs(Int(a.green) - Int(b.green)), abs(Int(a.blue) - Int(b.blue)))
    }

    @Test func renderWithPlaceholderMatchesTheSeparateCall() throws {
        let source = try Fixtures.engine.open(Fixtures.example("coffee.png"), name: "coffee.png")
        let combined = try source.render([VariantSpec(width: 300, height: nil, format: .jpeg)], placeholder: .all)
        #expect(combined.variants.count == 1)
        let separate = try source.placeholder(.all)
        // Resampled from the 300 px decode rather than decoded straight to 100 px: nearly equal.
        let a = try #require(combined.placeholder.averageColor)
        let b = try #require(separate.averageColor)
        #expect(abs(Int(a.red) - Int(b.red)) <= 3 && abs(Int(a.green) - Int(b.green)) <= 3 && abs(Int(a.blue) - Int(b.blue)) <= 3)
        #expect(combined.placeholder.blurHash?.count == separate.blurHash?.count)
    }
}
