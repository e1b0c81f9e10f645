import CVipsShim
import Foundation
import Testing
import WarmCache
@testable import WarmCacheImaging

/// Every encoder: decodes back, alpha policy, encoder options.
@Suite struct FormatTests {
    /// 80x60 with an opaque left half and a transparent right half.
    static let withAlpha: Data = {
        let image = Fixtures.image(width: 80, height: 60, bands: 4) { x, _ in x < 40 ? [200, 40, 40, 255] : [0, 0, 0, 0] }
        return try! Fixtures.encode(image, as: .png)
    }()

    @Test func allFormatsAreAvailableInThisBuild() {
        #expect(ImagingEngine.availableFormats() == Set(ImageFormat.allCases))
        #expect(ImagingEngine.supportsPNGPalette)
        for format in ImageFormat.allCases {
            #expect(wc_vips_has_operation(EncoderCapabilities.saverName(format)) == 1)
        }
        #expect(wc_vips_has_operation("nosuchsave_buffer") == 0)
    }

    @Test(arguments: ImageFormat.allCases)
    func eachFormatDecodesBack(format: ImageFormat) throws {
        let variant = try Check.renderOne(Fixtures.example("rocket.jpg"), VariantSpec(width: 96, height: nil, format: format))
        #expect(variant.pixelWidth == 96 && variant.pixelHeight == 64)
        let image = try Check.decoded(variant)
        #expect(Fixtures.pixel(image, 48, 32).count >= 3)
    }

    @Test(arguments: [ImageFormat.png, .webp, .avif, .heic, .jxl, .gif])
    func alphaIsKept(format: ImageFormat) throws {
        let variant = try Check.renderOne(Self.withAlpha, VariantSpec(width: 80, height: nil, format: format))
        #expect(variant.hasAlpha)
        let image = try Check.decoded(variant)
        #expect(image.hasAlpha)
        #expect((Fixtures.pixel(image, 70, 30).last ?? 255) < 10)
        #expect((Fixtures.pixel(image, 10, 30).last ?? 0) > 245)
    }

    @Test func jpegFlattensTransparencyOntoWhite() throws {
        let variant = try Check.renderOne(Self.withAlpha, VariantSpec(width: 80, height: nil, format: .jpeg))
        #expect(!variant.hasAlpha)
        let image = try Check.decoded(variant)
        #expect(image.bands == 3)
        #expect(Check.close(Fixtures.pixel(image, 70, 30), [255, 255, 255], tolerance: 3))
        #expect(Check.close(Fixtures.pixel(image, 10, 30), [200, 40, 40]))
    }

    @Test func jpegFlattensOntoTheFlattenProcessorColour() throws {
        let spec = VariantSpec(width: 80, height: nil, format: .jpeg,
                               processors: [.flatten(background: RGBAColor(red: 0, green: 0, blue: 255)), .roundCorners(radius: 10)])
        let image = try Check.decoded(Check.renderOne(Self.withAlpha, spec))
        #expect(Check.close(Fixtures.pixel(image, 0, 0), [0, 0, 255], tolerance: 6))
    }

    @Test func progressiveJPEGAndFullChroma() throws {
        let data = try Fixtures.example("rocket.jpg")
        let baseline = try Check.renderOne(data, VariantSpec(width: 120, height: nil, format: .jpeg))
        let progressive = try Check.renderOne(data, VariantSpec(width: 120, height: nil, format: .jpeg,
                                                                options: EncodingOptions(progressive: true, chromaSubsampling: false)))
        #expect(JPEGSegments.markers(of: baseline.data).contains(0xC0))
        #expect(JPEGSegments.markers(of: progressive.data).contains(0xC2))
        #expect(Self.lumaSampling(progressive.data) == 0x11)
        #expect(Self.lumaSampling(baseline.data) == 0x22)
    }

    /// The first component's sampling factors in the SOF segment (0x22 = 4:2:0, 0x11 = 4:4:4).
    static func lumaSampling(_ jpeg: Data) -> UInt8? {
        let bytes = [UInt8](jpeg)
        var offset = 2
        while offset + 4 < bytes.count, bytes[offset] == 0xFF {
            let marker = bytes[offset + 1]
            if marker == 0xC0 || marker == 0xC2 { return bytes[offset + 11] }
            offset += 2 + (Int(bytes[offset + 2]) << 8 | Int(bytes[offset + 3]))
        }
        return nil
    }

    @Test func qualityChangesTheSize() throws {
        let data = try Fixtures.example("coffee.png")
        for format in [ImageFormat.jpeg, .webp, .avif] {
            let low = try Check.renderOne(data, VariantSpec(width: 200, height: nil, format: format, quality: 20))
            let high = try Check.renderOne(data, VariantSpec(width: 200, height: nil, format: format, quality: 95))
            #expect(low.data.count < high.data.count, "\(format)")
        }
    }

    @Test func pngPaletteWritesAnIndexedImage() throws {
        let data = try Fixtures.example("coffee.png")
        let truecolour = try Check.renderOne(data, VariantSpec(width: 100, height: nil, format: .png))
        let palette = try Check.renderOne(data, VariantSpec(width: 100, height: nil, format: .png,
                                                            options: EncodingOptions(palette: true)))
        #expect([UInt8](truecolour.data)[25] == 2)
        #expect([UInt8](palette.data)[25] == 3)
        #expect(palette.data.count < truecolour.data.count)
    }

    @Test func webpLosslessUsesVP8L() throws {
        let variant = try Check.renderOne(Fixtures.example("coffee.png"), VariantSpec(width: 64, height: nil, format: .webp,
                                                                                      options: EncodingOptions(lossless: true)))
        #expect(WebPChunks.parse(variant.data)?.map(\.fourCC) == ["VP8L"])
    }

    @Test func effortIsClampedToTheEncoderRange() throws {
        let data = try Fixtures.example("rocket.jpg")
        for format in [ImageFormat.webp, .avif, .jxl, .png, .gif] {
            for effort in [-5, 0, 99] {
                let spec = VariantSpec(width: 32, height: nil, format: format, options: EncodingOptions(effort: effort))
                _ = try Check.decoded(Check.renderOne(data, spec))
            }
        }
    }
}
