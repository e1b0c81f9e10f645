import Foundation
import Testing
import WarmCache
@testable import WarmCacheImaging

/// Never worse than the source: an output that keeps the source's pixels is stored as the
/// source's own file, metadata removed, when that is smaller than its encoding.
@Suite struct SourcePassthroughTests {
    /// A photo (600x400) compressed hard, as JPEG at quality 40.
    static func hardPhoto(_ prepare: (VipsImage) throws -> VipsImage = { $0 }) throws -> Data {
        let photo = try Fixtures.decode(Fixtures.example("coffee.png"))
        return try Fixtures.encodeKeepingMetadata(prepare(photo), as: .jpeg, quality: 40)
    }

    static let comment = "shot at the secret location"

    /// `jpeg` with an EXIF block holding a GPS position and a comment segment, after its start marker.
    static func withEXIFAndComment(_ jpeg: Data) -> Data {
        // Big-endian TIFF: IFD0 with one entry pointing at a GPS IFD holding GPSLatitudeRef "N".
        var tiff = Data([0x4D, 0x4D, 0x00, 0x2A, 0, 0, 0, 8])
        tiff += Data([0, 1, 0x88, 0x25, 0, 4, 0, 0, 0, 1, 0, 0, 0, 26, 0, 0, 0, 0])
        tiff += Data([0, 1, 0, 1, 0, 2, 0, 0, 0, 2, 0x4E, 0, 0, 0, 0, 0, 0, 0])
        let exif = Data(JPEGSegments.exifSignature) + tiff
        var segments = Data([0xFF, 0xE1, UInt8((exif.count + 2) >> 8), UInt8((exif.count + 2) & 0xFF)]) + exif
        let text = Data(comment.utf8)
        segments += Data([0xFF, 0xFE, 0, UInt8(text.count + 2)]) + text
        return jpeg.prefix(2) + segments + jpeg.dropFirst(2)
    }

    /// The candidates of `formats: [smallest]` for iOS 16 at the source's own width. At target
    /// 95 every format needs more bytes than the quality-40 source to keep its pixels that close.
    static func smallest(width: Int, target: Int = 95) -> [VariantSpec] {
        VariantRequest(width: width, height: nil, format: .smallest(opaque: [.avif, .webp, .jpeg], alpha: [.avif, .webp]),
                       qualityTarget: target).candidates(sourceHasAlpha: false)
    }

    static func render(_ data: Data, _ candidates: [VariantSpec]) throws -> EncodedVariant {
        try Fixtures.engine.open(data, name: "photo.jpg").render(candidates: [candidates], placeholder: []).variants[0]
    }

    static func contains(_ data: Data, _ text: String) -> Bool {
        data.range(of: Data(text.utf8)) != nil
    }

    @Test func smallestKeepsTheSourceWithoutItsMetadata() throws {
        let source = Self.withEXIFAndComment(try Self.hardPhoto())
        #expect(try Fixtures.engine.open(source, name: "photo.jpg").info.orientation == 1)
        let variant = try Self.render(source, Self.smallest(width: 600))
        #expect(variant.spec.format == .jpeg)
        #expect(variant.data == JPEGSegments.removingMetadata(from: source, keepICCProfile: false))
        #expect(variant.data.count <= source.count)
        #expect(variant.perceptual == .sourceKept)
        #expect(variant.pixelWidth == 600 && variant.pixelHeight == 400)
        #expect(!Self.contains(variant.data, "Exif") && !Self.contains(variant.data, Self.comment))
        let markers = JPEGSegments.markers(of: variant.data)
        #expect(!markers.contains(0xE1) && !markers.contains(0xFE))
        #expect(try Check.decoded(variant).size == PixelSize(width: 600, height: 400))
    }

    @Test func orientedSourceIsEncoded() throws {
        let source = try Self.hardPhoto { try Fixtures.setting("orientation", to: 6, on: $0) }
        let opened = try Fixtures.engine.open(source, name: "photo.jpg")
        #expect(opened.info.orientation == 6)
        let variant = try Self.render(source, Self.smallest(width: 400))
        #expect(variant.perceptual != .sourceKept)
        #expect(variant.data != JPEGSegments.removingMetadata(from: source, keepICCProfile: false))
    }

    @Test func displayP3SourceIsEncoded() throws {
        let source = try Self.hardPhoto { try ColourTests.transformed($0, to: "p3") }
        #expect(try Fixtures.engine.open(source, name: "photo.jpg").info.hasICCProfile)
        let variant = try Self.render(source, Self.smallest(width: 600))
        #expect(variant.perceptual != .sourceKept)
        #expect(!Self.contains(variant.data, "ICC_PROFILE"))
    }

    @Test func fixedOtherFormatStaysThatFormat() throws {
        let source = try Self.hardPhoto()
        let variant = try Self.render(source, [VariantSpec(width: 600, height: nil, format: .avif, qualityTarget: 80)])
        #expect(variant.spec.format == .avif)
        #expect(variant.perceptual != .sourceKept)
    }

    @Test func fixedSourceFormatAtHighQualityKeepsTheSource() throws {
        let source = Self.withEXIFAndComment(try Self.hardPhoto())
        let variant = try Self.render(source, [VariantSpec(width: 600, height: nil, format: .jpeg, quality: 95)])
        #expect(variant.data == JPEGSegments.removingMetadata(from: source, keepICCProfile: false))
        #expect(variant.spec.quality == 95 && variant.perceptual == nil)
        #expect(!Self.contains(variant.data, "Exif"))
    }

    @Test func resizedOutputIsNeverTheSource() throws {
        let source = try Self.hardPhoto()
        let variant = try Self.render(source, [VariantSpec(width: 300, height: nil, format: .jpeg, quality: 95)])
        #expect(variant.pixelWidth == 300)
        #expect(variant.data != JPEGSegments.removingMetadata(from: source, keepICCProfile: false))
    }

    @Test func webPSourceKeepsItselfWithoutEXIF() throws {
        let withEXIF = try Fixtures.decode(Self.withEXIFAndComment(try Self.hardPhoto()))
        let source = try Fixtures.encodeKeepingMetadata(withEXIF, as: .webp, quality: 40)
        #expect(WebPChunks.parse(source)?.contains { $0.fourCC == "EXIF" } == true)
        let variant = try Self.render(source, [VariantSpec(width: 600, height: nil, format: .webp, quality: 95)])
        let chunks = try #require(WebPChunks.parse(variant.data))
        #expect(variant.data.count < source.count)
        #expect(!chunks.contains { $0.fourCC == "EXIF" || $0.fourCC == "XMP " })
        #expect(chunks.contains { $0.fourCC == "VP8 " })
    }

    @Test func largerPNGSourceLosesToTheEncoding() throws {
        let source = try Fixtures.example("coffee.png")
        let candidates = VariantRequest(width: 600, height: nil, format: .smallest(opaque: [.avif, .png], alpha: [.png]),
                                        qualityTarget: 80).candidates(sourceHasAlpha: false)
        let variant = try Self.render(source, candidates)
        #expect(variant.spec.format == .avif)
        #expect(variant.data.count < source.count)
        #expect(variant.perceptual != .sourceKept)
    }

    @Test func pngMetadataChunksGoPixelsStay() throws {
        let png = try Fixtures.encode(Fixtures.gradient(width: 40, height: 30), as: .png)
        let end = png.count - 12  // IEND
        var tagged = png.prefix(end)
        tagged.appendChunk("tEXt", Data("Comment\0secret".utf8))
        tagged.appendChunk("tIME", Data([0x07, 0xEA, 12, 7, 5, 0, 0]))
        tagged += png.suffix(12)
        let stripped = try #require(PNGChunks.removingMetadata(from: tagged, keepICCProfile: false))
        #expect(stripped == png)
        #expect(PNGChunks.bitDepth(of: stripped) == 8)
        #expect(try Fixtures.decode(stripped).size == PixelSize(width: 40, height: 30))
    }

    @Test func jpegRemovalKeepsTheScanAndDropsTrailingData() throws {
        let source = Self.withEXIFAndComment(try Self.hardPhoto()) + Data([0xFF, 0xD8, 0xFF, 0xD9])
        let stripped = try #require(JPEGSegments.removingMetadata(from: source, keepICCProfile: false))
        #expect(stripped.suffix(2) == Data([0xFF, 0xD9]))
        #expect(stripped.count < source.count - 4)
        #expect(JPEGSegments.removingMetadata(from: Data("not a jpeg".utf8), keepICCProfile: false) == nil)
    }
}
