import CVipsShim
import Foundation
import Testing
import WarmCache
@testable import WarmCacheImaging

/// Metadata is stripped by default; `keepICCProfile` keeps the profile and nothing else.
@Suite struct MetadataTests {
    /// chelsea.png carries an ICC profile and XMP; saving it as JPEG with an artist tag adds EXIF.
    static let richJPEG: Data = {
        let source = try! Fixtures.decode(Fixtures.example("chelsea.png"))
        let tagged = try! source.derive("tag") { wc_set_string($0, "exif-ifd0-Artist", "Jane Doe", $1) }
        return try! Fixtures.encodeKeepingMetadata(tagged, as: .jpeg)
    }()

    static func fields(_ image: VipsImage) -> (exif: Bool, xmp: Bool, icc: Bool, artist: Bool) {
        (wc_image_has_field(image.pointer, "exif-data") != 0, wc_image_has_field(image.pointer, "xmp-data") != 0,
         image.hasICCProfile, wc_image_has_field(image.pointer, "exif-ifd0-Artist") != 0)
    }

    @Test func theFixtureReallyCarriesMetadata() throws {
        let fields = try Self.fields(Fixtures.decode(Self.richJPEG))
        #expect(fields.exif && fields.icc && fields.artist)
    }

    @Test(arguments: ImageFormat.allCases)
    func strippedByDefault(format: ImageFormat) throws {
        let variant = try Check.renderOne(Self.richJPEG, VariantSpec(width: 64, height: nil, format: format))
        let fields = try Self.fields(Check.decoded(variant))
        #expect(!fields.exif && !fields.xmp && !fields.artist)
        // libjxl's decoder always reports a profile, synthesised from the codestream's colour
        // encoding (plain sRGB here), so only the other formats can show its absence.
        #expect(!fields.icc || format == .jxl)
    }

    @Test func webpHasOnlyTheBitstreamChunk() throws {
        let variant = try Check.renderOne(Self.richJPEG, VariantSpec(width: 64, height: nil, format: .webp))
        #expect(WebPChunks.parse(variant.data)?.map(\.fourCC) == ["VP8 "])
        let alpha = try Check.renderOne(FormatTests.withAlpha, VariantSpec(width: 64, height: nil, format: .webp))
        let chunks = try #require(WebPChunks.parse(alpha.data))
        #expect(chunks.map(\.fourCC) == ["VP8X", "ALPH", "VP8 "])
        #expect(chunks[0].payload.first == 0x10)
    }

    @Test func keptICCProfileComesWithoutEXIF() throws {
        let options = EncodingOptions(keepICCProfile: true)
        for format in [ImageFormat.jpeg, .png, .webp, .avif, .heic, .jxl] {
            let variant = try Check.renderOne(Self.richJPEG, VariantSpec(width: 64, height: nil, format: format, options: options))
            let fields = try Self.fields(Check.decoded(variant))
            #expect(fields.icc, "\(format) keeps ICC")
            #expect(!fields.xmp && !fields.artist, "\(format) drops the source's EXIF and XMP")
            // libvips 8.14's heifsave, when not stripping, writes a fresh EXIF block of its own
            // (resolution, size, orientation 1): nothing from the source, but not nothing.
            #expect(!fields.exif || format == .avif || format == .heic, "\(format) writes no EXIF")
        }
        let webp = try Check.renderOne(Self.richJPEG, VariantSpec(width: 64, height: nil, format: .webp, options: options))
        #expect(WebPChunks.parse(webp.data)?.map(\.fourCC) == ["VP8X", "ICCP", "VP8 "])
        let jpeg = try Check.renderOne(Self.richJPEG, VariantSpec(width: 64, height: nil, format: .jpeg, options: options))
        #expect(!JPEGSegments.markers(of: jpeg.data).contains(0xE1))
        #expect(JPEGSegments.markers(of: jpeg.data).contains(0xE2))
    }
}
