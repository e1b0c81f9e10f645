import Foundation
import Testing
import WarmCache
@testable import WarmCacheImaging

/// JPEGs decode at the smallest power-of-two fraction the decode size allows, and look the same
/// as when libvips keeps a factor of two for its resampler.
@Suite struct ShrinkOnLoadTests {
    static func info(loader: String = "jpeg", width: Int, height: Int) throws -> SourceImageInfo {
        var info = try Fixtures.engine.open(Fixtures.example("rocket.jpg"), name: "rocket.jpg").info
        info.loader = loader
        info.pixelWidth = width
        info.pixelHeight = height
        return info
    }

    @Test func factorIsTheLargestPowerOfTwoBothAxesAllow() throws {
        let photo = try Self.info(width: 3_600, height: 2_400)
        #expect(JPEGShrinkOnLoad.factor(source: photo, target: PixelSize(width: 1_024, height: 683), fast: true) == 2)
        #expect(JPEGShrinkOnLoad.factor(source: photo, target: PixelSize(width: 900, height: 600), fast: true) == 4)
        #expect(JPEGShrinkOnLoad.factor(source: photo, target: PixelSize(width: 64, height: 43), fast: true) == 8)
        #expect(JPEGShrinkOnLoad.factor(source: photo, target: PixelSize(width: 1_900, height: 1_267), fast: true) == 1)
        // The axis with the least room decides (a stretched or cropped decode).
        #expect(JPEGShrinkOnLoad.factor(source: photo, target: PixelSize(width: 400, height: 1_500), fast: true) == 1)
        // Off, or not a JPEG: libvips decides.
        #expect(JPEGShrinkOnLoad.factor(source: photo, target: PixelSize(width: 64, height: 43), fast: false) == 1)
        let png = try Self.info(loader: "png", width: 3_600, height: 2_400)
        #expect(JPEGShrinkOnLoad.factor(source: png, target: PixelSize(width: 64, height: 43), fast: true) == 1)
    }

    /// rocket.jpg (640x427) decoded at 160 px (a ladder step) shrinks on load at 1/4 instead of
    /// libvips' 1/2 and a resample: the difference from libvips' rule, made 150 px wide, is no
    /// larger than the noise JPEG quality 80 adds to that rule's pixels. (The renderer decodes a
    /// JPEG this small whole and halves it; larger ones shrink on load like this.)
    @Test func fastDecodeStaysWithinJPEGNoise() throws {
        let data = try Fixtures.example("rocket.jpg")
        let careful = try ImagingEngine(configuration: ImagingConfiguration(fastShrinkOnLoad: false))
        let info = try Fixtures.engine.open(data, name: "rocket.jpg").info
        func decoded(fast: Bool) throws -> VipsImage {
            try data.withUnsafeBytes { bytes in
                let decoder = SourceDecoder(bytes: bytes, source: info, name: "rocket.jpg",
                                            failOn: Fixtures.engine.failLevel, fastShrinkOnLoad: fast)
                return try decoder.decode(size: PixelSize(width: 160, height: 106), exportProfile: nil)
                    .resized(to: PixelSize(width: 150, height: 100)).copiedToMemory()
            }
        }
        func rendered(_ format: ImageFormat) throws -> VipsImage {
            let spec = VariantSpec(width: 150, height: nil, format: format, quality: 80)
            return try Check.decoded(careful.open(data, name: "rocket.jpg").render([spec])[0])
        }
        let fast = try decoded(fast: true)
        let reference = try decoded(fast: false)
        let referenceAsJPEG = try rendered(.jpeg)
        let rendering = try rendered(.png)
        #expect(fast.size == PixelSize(width: 150, height: 100))
        #expect(reference.size == fast.size)
        #expect(rendering.size == fast.size)

        let decodeDifference = Self.psnr(fast, reference)
        let jpegNoise = Self.psnr(referenceAsJPEG, rendering)
        #expect(decodeDifference > jpegNoise - 2,
                "fast decode \(decodeDifference) dB from libvips' rule; JPEG q80 \(jpegNoise) dB")
    }

    /// Peak signal-to-noise ratio of `a` against `b` (same size), over every third pixel.
    static func psnr(_ a: VipsImage, _ b: VipsImage) -> Double {
        var squares = 0.0
        var samples = 0
        for y in stride(from: 0, to: a.size.height, by: 3) {
            for x in stride(from: 0, to: a.size.width, by: 3) {
                for (p, q) in zip(Fixtures.pixel(a, x, y), Fixtures.pixel(b, x, y)) {
                    squares += (p - q) * (p - q)
                    samples += 1
                }
            }
        }
        return 10 * log10(255 * 255 / max(squares / Double(max(samples, 1)), 1e-9))
    }
}
