import CVipsShim
import Foundation
import Testing
import WarmCache
@testable import WarmCacheImaging

/// Colour management: CMYK, 16-bit, grey and profiled sources all come out as ordinary sRGB
/// (or grey) images.
@Suite struct ColourTests {
    static var orange: VipsImage { Fixtures.image(width: 64, height: 48, bands: 3) { _, _ in [230, 120, 30] } }

    static func transformed(_ image: VipsImage, to profile: String) throws -> VipsImage {
        try image.derive("icc") { wc_icc_transform($0, profile, $1) }
    }

    @Test(arguments: [true, false])
    func cmykBecomesSRGB(withProfile: Bool) throws {
        let cmyk = try Self.transformed(Self.orange, to: "cmyk")
        #expect(cmyk.space == .cmyk)
        let data = try withProfile ? Fixtures.encodeKeepingMetadata(cmyk, as: .jpeg) : Fixtures.encode(cmyk, as: .jpeg)
        let source = try Fixtures.engine.open(data, name: "cmyk.jpg")
        #expect(source.info.colorModel == .cmyk)
        #expect(source.info.hasICCProfile == withProfile)

        for format in [ImageFormat.jpeg, .png, .webp] {
            let image = try Check.decoded(source.render([VariantSpec(width: 32, height: nil, format: format)])[0])
            #expect(image.bands == 3 && image.space == .srgb)
            #expect(!image.hasICCProfile)
            #expect(Check.close(Fixtures.pixel(image, 16, 12), [230, 120, 30], tolerance: 25))
        }
    }

    @Test func sixteenBitBecomesEightBit() throws {
        let deep = try Self.orange.converted(to: .rgb16)
        let data = try Fixtures.encode(deep, as: .png)
        let source = try Fixtures.engine.open(data, name: "deep.png")
        let image = try Check.decoded(source.render([VariantSpec(width: 32, height: nil, format: .png)])[0])
        #expect(image.isUChar && image.space == .srgb)
        #expect(Check.close(Fixtures.pixel(image, 16, 12), [230, 120, 30], tolerance: 2))
    }

    @Test func sixteenBitGreyBecomesEightBitGrey() throws {
        let grey = try Fixtures.image(width: 40, height: 40, bands: 1) { x, _ in [UInt8(x * 6)] }.converted(to: .grey16)
        let image = try Check.decoded(Check.renderOne(Fixtures.encode(grey, as: .png), VariantSpec(width: 20, height: nil, format: .png)))
        #expect(image.isUChar && image.bands == 1)
    }

    @Test func greyStaysGrey() throws {
        let data = try Fixtures.example("camera.png")
        for format in [ImageFormat.jpeg, .png, .webp, .avif] {
            let image = try Check.decoded(Check.renderOne(data, VariantSpec(width: 64, height: nil, format: format)))
            let pixel = Fixtures.pixel(image, 30, 30)
            // One grey band, or three equal ones: either way every decoder shows grey.
            #expect(pixel.count == 1 || (abs(pixel[0] - pixel[1]) <= 3 && abs(pixel[1] - pixel[2]) <= 3))
        }
    }

    @Test func profiledSourcesAreConvertedToSRGBWithoutAProfile() throws {
        let p3 = try Self.transformed(Self.orange, to: "p3")
        #expect(p3.hasICCProfile)
        let data = try Fixtures.encodeKeepingMetadata(p3, as: .png)
        let variant = try Check.renderOne(data, VariantSpec(width: 32, height: nil, format: .png))
        let image = try Check.decoded(variant)
        #expect(!image.hasICCProfile)
        #expect(Check.close(Fixtures.pixel(image, 16, 12), [230, 120, 30], tolerance: 4))
    }

    @Test func keepICCProfileKeepsTheSourceSpace() throws {
        let p3 = try Self.transformed(Self.orange, to: "p3")
        let data = try Fixtures.encodeKeepingMetadata(p3, as: .png)
        let stored = Fixtures.pixel(p3, 5, 5)
        for format in [ImageFormat.png, .jpeg, .webp, .avif, .jxl] {
            let spec = VariantSpec(width: 32, height: nil, format: format, quality: 95,
                                   options: EncodingOptions(keepICCProfile: true))
            let image = try Check.decoded(Check.renderOne(data, spec))
            #expect(image.hasICCProfile, "\(format) keeps the profile")
            #expect(Check.close(Fixtures.pixel(image, 16, 12), stored, tolerance: 6), "\(format) keeps P3 values")
        }
    }
}
