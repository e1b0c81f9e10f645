import Foundation
import Testing
import WarmCache
@testable import WarmCacheImaging

/// Container surgery and encoder settings, on synthetic bytes.
@Suite struct ContainerTests {
    static func chunk(_ fourCC: String, _ bytes: [UInt8]) -> WebPChunks.Chunk {
        WebPChunks.Chunk(fourCC: fourCC, payload: Data(bytes))
    }

    @Test func webpMetadataChunksAreRemovedAndFlagsCleared() throws {
        let file = WebPChunks.serialise([
            Self.chunk("VP8X", [0x3C, 0, 0, 0, 9, 0, 0, 9, 0, 0]), Self.chunk("ICCP", [1, 2, 3]),
            Self.chunk("ALPH", [7]), Self.chunk("VP8 ", [1, 2, 3, 4]), Self.chunk("EXIF", [5, 6]), Self.chunk("XMP ", [9]),
        ])
        let stripped = try #require(WebPChunks.parse(WebPChunks.removingMetadata(from: file, keepICCProfile: false)))
        #expect(stripped.map(\.fourCC) == ["VP8X", "ALPH", "VP8 "])
        #expect(stripped[0].payload.first == 0x10)
        let kept = try #require(WebPChunks.parse(WebPChunks.removingMetadata(from: file, keepICCProfile: true)))
        #expect(kept.map(\.fourCC) == ["VP8X", "ICCP", "ALPH", "VP8 "])
        #expect(kept[0].payload.first == 0x30)
    }

    @Test func bareBitstreamsBecomeSimpleFiles() throws {
        let file = WebPChunks.serialise([Self.chunk("VP8X", [0x08, 0, 0, 0, 9, 0, 0, 9, 0, 0]),
                                         Self.chunk("VP8L", [1, 2, 3]), Self.chunk("EXIF", [1])])
        let stripped = WebPChunks.removingMetadata(from: file, keepICCProfile: false)
        #expect(WebPChunks.parse(stripped)?.map(\.fourCC) == ["VP8L"])
        // RIFF size = 4 ("WEBP") + 8 + 3 + 1 padding byte.
        #expect([UInt8](stripped)[4] == 16 && stripped.count == 24)
    }

    @Test func malformedWebPIsLeftAlone() {
        let junk = Data("RIFF\u{10}\0\0\0WEBPVP8 \u{ff}\0\0\0".utf8)
        #expect(WebPChunks.removingMetadata(from: junk, keepICCProfile: false) == junk)
    }

    @Test func jpegEXIFAndXMPSegmentsAreRemoved() {
        let exif: [UInt8] = [0xFF, 0xE1, 0x00, 0x08] + Array("Exif\0\0".utf8)
        let icc: [UInt8] = [0xFF, 0xE2, 0x00, 0x04, 0xAA, 0xBB]
        let scan: [UInt8] = [0xFF, 0xDA, 0x00, 0x02, 0x12, 0x34, 0xFF, 0xD9]
        let file = Data([0xFF, 0xD8] + exif + icc + scan)
        #expect(JPEGSegments.removingEXIFAndXMP(from: file) == Data([0xFF, 0xD8] + icc + scan))
        #expect(JPEGSegments.markers(of: file) == [0xE1, 0xE2])
    }

    @Test func encoderSettingsUseDefaultsAndClamp() {
        let defaults = EncoderDefaults()
        let avif = EncoderSettings.resolve(VariantSpec(width: 1, height: 1, format: .avif), defaults: defaults)
        #expect(avif.quality == 55 && avif.effort == 4 && !avif.lossless && !avif.keepICCProfile)
        let jxl = EncoderSettings.resolve(VariantSpec(width: 1, height: 1, format: .jxl, quality: 400,
                                                      options: EncodingOptions(effort: 1)), defaults: defaults)
        #expect(jxl.quality == 100 && jxl.effort == 3)
        let jpeg = EncoderSettings.resolve(VariantSpec(width: 1, height: 1, format: .jpeg, quality: 0,
                                                       options: EncodingOptions(chromaSubsampling: false)), defaults: defaults)
        #expect(jpeg.quality == 1 && jpeg.subsampling == .off && jpeg.saveOptions.strip == 1)
        let kept = EncoderSettings.resolve(VariantSpec(width: 1, height: 1, format: .png,
                                                       options: EncodingOptions(keepICCProfile: true)), defaults: defaults)
        #expect(kept.saveOptions.strip == 0 && kept.effort == 6)
    }

    @Test func errorsDescribeTheSourceAndLibvips() {
        let error = ImagingError(.corruptOrTruncated, source: "https://x/cat.jpg", message: "the data is corrupt",
                                 libvipsMessage: "VipsJpeg: Corrupt JPEG data\nbad Huffman code")
        // libvips' words, without its type names (VipsJpeg).
        #expect(error.description == "https://x/cat.jpg: the data is corrupt (libvips: Corrupt JPEG data; bad Huffman code)")
        // Its lines that only restate a truncation the message already says are left out.
        let truncated = ImagingError.decode(source: "/photos/cat.jpg", call: VipsCallError(
            operation: "jpegload_buffer", log: "VipsJpeg: Premature end of input file\njpegload_buffer: out of order read"))
        #expect(truncated.description == "/photos/cat.jpg: the file is truncated: it ends before its image data does")
        #expect(truncated.kind == .corruptOrTruncated && truncated.libvipsMessage != nil)
        #expect(DecodeFailureClassifier.kind(of: "vipspng: libpng read error") == .corruptOrTruncated)
        #expect(DecodeFailureClassifier.kind(of: "VipsJpeg: Unsupported JPEG process: SOF type 0xc3") == .decodeFailed)
    }
}
