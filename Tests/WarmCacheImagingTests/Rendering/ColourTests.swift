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

/// Sources whose embedded profile is the standard sRGB one are decoded as they are: converting
/// them to sRGB would change nothing but cost a colour transform per pixel.
@Suite struct StandardSRGBProfileTests {
    /// A minimal RGB display profile whose only tag is its description, as a v2 `desc` or a
    /// v4 `mluc`.
    static func profile(named name: String, mluc: Bool = false, space: String = "RGB ") -> [UInt8] {
        func u32(_ value: Int) -> [UInt8] { [24, 16, 8, 0].map { UInt8((value >> $0) & 0xff) } }
        let text: [UInt8] = mluc ? Array(name.utf16).flatMap { [UInt8($0 >> 8), UInt8($0 & 0xff)] }
                                 : Array(name.utf8) + [0]
        let tag: [UInt8] = mluc
            ? Array("mluc".utf8) + u32(0) + u32(1) + u32(12) + Array("enUS".utf8) + u32(text.count) + u32(28) + text
            : Array("desc".utf8) + u32(0) + u32(text.count) + text
        var header = [UInt8](repeating: 0, count: 128)
        header.replaceSubrange(12..<16, with: Array("mntr".utf8))
        header.replaceSubrange(16..<20, with: Array(space.utf8))
        header.replaceSubrange(20..<24, with: Array("XYZ ".utf8))
        header.replaceSubrange(36..<40, with: Array("acsp".utf8))
        let bytes = header + u32(1) + Array("desc".utf8) + u32(144) + u32(tag.count) + tag
        return bytes
    }

    static func isSRGB(_ bytes: [UInt8]) -> Bool {
        bytes.withUnsafeBytes { wc_icc_is_srgb($0.baseAddress, $0.count) != 0 }
    }

    @Test func theStandardNamesAreRecognisedAndNothingElse() {
        for name in ["sRGB IEC61966-2.1", "sRGB IEC61966-2-1 black scaled", "sRGB", "sRGB built-in"] {
            #expect(Self.isSRGB(Self.profile(named: name)), "\(name)")
            #expect(Self.isSRGB(Self.profile(named: name, mluc: true)), "\(name) (mluc)")
        }
        for name in ["Display P3", "scRGB", "Adobe RGB (1998)", "sRGB-like monitor", "sRGB2 custom", ""] {
            #expect(!Self.isSRGB(Self.profile(named: name)), "\(name)")
        }
        #expect(!Self.isSRGB(Self.profile(named: "sRGB IEC61966-2.1", space: "CMYK")))
        let whole = Self.profile(named: "sRGB IEC61966-2.1")
        for length in [0, 100, 131, whole.count - 5] {
            #expect(!Self.isSRGB(Array(whole.prefix(length))), "cut at \(length)")
        }
    }

    @Test func aSourceWithTheSRGBProfileRendersAsTheSameSourceWithoutIt() throws {
        let srgb = try ColourTests.transformed(ColourTests.orange, to: "srgb")
        #expect(srgb.hasICCProfile && srgb.hasSRGBProfile)
        #expect(try !ColourTests.transformed(ColourTests.orange, to: "p3").hasSRGBProfile)
        let profiled = try Fixtures.encodeKeepingMetadata(srgb, as: .png)
        let plain = try Fixtures.encode(srgb, as: .png)
        let spec = VariantSpec(width: 32, height: nil, format: .png)
        let a = try Check.decoded(Check.renderOne(profiled, spec))
        let b = try Check.decoded(Check.renderOne(plain, spec))
        #expect(!a.hasICCProfile)
        #expect(Fixtures.pixel(a, 16, 12) == Fixtures.pixel(b, 16, 12))
        #expect(Check.close(Fixtures.pixel(a, 16, 12), [230, 120, 30], tolerance: 2))
    }
}
