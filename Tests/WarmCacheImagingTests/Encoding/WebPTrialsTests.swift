import CVipsShim
import Foundation
import Testing
import WarmCache
@testable import WarmCacheImaging

/// A quality search encodes WebP through libwebp with the conversion to YUV done once: each of
/// its encodes must be the file the libvips saver writes for the same pixels and settings, and its
/// decoder must see the pixels libvips' loader sees.
@Suite struct WebPTrialsTests {
    static func settings(chroma: Bool?, quality: Int) -> EncoderSettings {
        var spec = VariantSpec(width: 100, height: nil, format: .webp, qualityTarget: 80)
        spec.options.chromaSubsampling = chroma
        var settings = EncoderSettings.resolve(spec, defaults: EncoderDefaults())
        settings.quality = quality
        return settings
    }

    @Test(arguments: [false, true])
    func eachEncodeIsTheSaversFile(alpha: Bool) throws {
        let photo = try Fixtures.decode(try Fixtures.example("coffee.png"))
        let images = alpha ? [Fixtures.gradient(width: 157, height: 93, alpha: true)] : [photo, Fixtures.gradient(width: 31, height: 17)]
        for image in images {
            let bands = image.hasAlpha ? 4 : 3
            for chroma in [nil, true] as [Bool?] {  // sharp RGB-to-YUV (a target's default), and plain 4:2:0
                let trials = try WebPTrials(try image.scoringPixels(bands: bands),
                                            settings: Self.settings(chroma: chroma, quality: 50))
                for quality in [30, 77, 100] {
                    let settings = Self.settings(chroma: chroma, quality: quality)
                    #expect(WebPTrials.applies(to: settings))
                    let expected = try Encoder.encode(image, settings: settings)
                    #expect(try trials.encode(quality: quality) == expected,
                            "\(image.size.width)x\(image.size.height), chroma \(String(describing: chroma)), quality \(quality)")
                }
            }
        }
    }

    /// The eight-lane sharp RGB-to-YUV conversion gives libwebp's own planes, so the same files:
    /// at odd and even sizes, the smallest libwebp converts the sharp way (4x4), with and without
    /// transparency, on a photo at several sizes.
    @Test(.enabled(if: wc_cpu_wide() != 0, "this processor has no AVX2: libwebp converts alone"))
    func wideSharpConversionIsLibwebps() throws {
        let photo = try Fixtures.decode(try Fixtures.example("coffee.png"))
        var images = [Fixtures.gradient(width: 4, height: 4), Fixtures.gradient(width: 5, height: 7),
                      Fixtures.gradient(width: 33, height: 18), Fixtures.gradient(width: 157, height: 93, alpha: true),
                      Fixtures.gradient(width: 20, height: 21, alpha: true)]
        for width in [64, 127, 480] {
            let height = width * photo.size.height / photo.size.width
            images.append(try photo.resized(to: PixelSize(width: width, height: height)))
        }
        let settings = Self.settings(chroma: nil, quality: 80)
        for image in images {
            let pixels = try image.scoringPixels(bands: image.hasAlpha ? 4 : 3)
            let wide = try WebPTrials(pixels, settings: settings, wide: true)
            let libwebp = try WebPTrials(pixels, settings: settings, wide: false)
            for quality in [40, 90] {
                #expect(try wide.encode(quality: quality) == libwebp.encode(quality: quality),
                        "\(image.size.width)x\(image.size.height), alpha \(image.hasAlpha), quality \(quality)")
            }
        }
    }

    @Test func decodingSeesTheLoadersPixels() throws {
        for image in [Fixtures.gradient(width: 64, height: 48), Fixtures.gradient(width: 64, height: 48, alpha: true)] {
            let bands = image.hasAlpha ? 4 : 3
            let data = try Encoder.encode(image, settings: Self.settings(chroma: nil, quality: 60))
            let direct = try DecodedPixels(data, bands: bands, format: .webp).image
            let throughLibvips = try DecodedPixels(data, bands: bands).image
            #expect(direct.pixels == throughLibvips.pixels)
            #expect(direct.width == 64 && direct.height == 48)
        }
    }

    @Test func losslessAndKeptProfilesGoThroughTheSaver() {
        var lossless = Self.settings(chroma: nil, quality: 90)
        lossless.lossless = true
        var profiled = Self.settings(chroma: nil, quality: 90)
        profiled.keepICCProfile = true
        #expect(!WebPTrials.applies(to: lossless) && !WebPTrials.applies(to: profiled))
    }
}
