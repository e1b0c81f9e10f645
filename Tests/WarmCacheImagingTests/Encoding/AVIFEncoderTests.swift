import CVipsShim
import Foundation
import Testing
import WarmCache
@testable import WarmCacheImaging

/// AVIF is written by libavif with libaom (`CVipsShim/avif.c`): the quality's quantizer, the
/// effort's speed, the chroma rule and lossless, read back from the files.
@Suite("AVIF through libavif")
struct AVIFEncoderTests {
    /// The `av1C` boxes' chroma subsampling (x, y) bits: (1, 1) is 4:2:0, (0, 0) 4:4:4.
    static func chromaSubsampling(in file: Data) -> [[Int]] {
        ColourSignallingTests.properties("av1C", in: file).filter { $0.count >= 4 }.map {
            [Int($0[2] >> 3) & 1, Int($0[2] >> 2) & 1]
        }
    }

    static func encode(_ image: VipsImage, quality: Int, chromaSubsampling: Bool? = nil, lossless: Bool = false) throws -> Data {
        let spec = VariantSpec(width: nil, height: nil, format: .avif, quality: quality,
                               options: EncodingOptions(lossless: lossless, chromaSubsampling: chromaSubsampling))
        return try Encoder.encode(image, settings: EncoderSettings.resolve(spec, defaults: EncoderDefaults()))
    }

    @Test("quality maps to libaom's quantizer as libheif mapped it; effort to speed")
    func mappings() {
        #expect([100, 90, 80, 60, 55, 50, 1, 0].map { wc_avif_quantizer(Int32($0)) } == [0, 6, 13, 25, 28, 32, 62, 63])
        #expect((0...9).map { wc_avif_speed(Int32($0)) } == [9, 8, 7, 6, 5, 4, 3, 2, 1, 0])
        #expect(wc_avif_speed(-3) == wc_avif_speed(0) && wc_avif_speed(12) == wc_avif_speed(9))
    }

    @Test("an AVIF file with libavif's brands, the same bytes every time")
    func deterministic() throws {
        let image = Fixtures.gradient(width: 96, height: 64)
        let first = try Self.encode(image, quality: 60)
        #expect(String(decoding: first[4..<12], as: UTF8.self) == "ftypavif")
        #expect(try Self.encode(image, quality: 60) == first)
        let decoded = try Fixtures.decode(first)
        #expect(decoded.size == PixelSize(width: 96, height: 64) && !decoded.hasAlpha)
    }

    @Test("4:2:0 below quality 90 unless full chroma is asked for; 4:4:4 from 90 and when lossless")
    func chroma() throws {
        let image = Fixtures.gradient(width: 64, height: 48)
        #expect(Self.chromaSubsampling(in: try Self.encode(image, quality: 60)) == [[1, 1]])
        #expect(Self.chromaSubsampling(in: try Self.encode(image, quality: 95)) == [[0, 0]])
        #expect(Self.chromaSubsampling(in: try Self.encode(image, quality: 60, chromaSubsampling: false)) == [[0, 0]])
        #expect(Self.chromaSubsampling(in: try Self.encode(image, quality: 95, chromaSubsampling: true)) == [[1, 1]])
        #expect(Self.chromaSubsampling(in: try Self.encode(image, quality: 60, lossless: true)) == [[0, 0]])
    }

    @Test("alpha comes back, in its own AV1 image")
    func alpha() throws {
        let image = Fixtures.gradient(width: 64, height: 48, alpha: true)
        let data = try Self.encode(image, quality: 70)
        #expect(Self.chromaSubsampling(in: data).count == 2)  // colour and alpha
        let decoded = try Fixtures.decode(data)
        #expect(decoded.hasAlpha)
        #expect(Check.close([Fixtures.pixel(decoded, 10, 24)[3]], [255], tolerance: 2))
        #expect(Check.close([Fixtures.pixel(decoded, 54, 24)[3]], [64], tolerance: 4))
    }

    @Test("lossless keeps the pixels within the YUV round trip; higher quality, more bytes")
    func losslessAndQuality() throws {
        let image = Fixtures.gradient(width: 64, height: 48)
        let decoded = try Fixtures.decode(try Self.encode(image, quality: 50, lossless: true))
        for (x, y) in [(0, 0), (31, 20), (63, 47)] {
            #expect(Check.close(Fixtures.pixel(decoded, x, y), Fixtures.pixel(image, x, y), tolerance: 2), "at \(x), \(y)")
        }
        let photo = try Check.renderOne(Fixtures.example("coffee.png"), VariantSpec(width: 160, height: nil, format: .png))
        let source = try Fixtures.decode(photo.data)
        let sizes = try [30, 60, 90].map { try Self.encode(source, quality: $0, chromaSubsampling: false).count }
        #expect(sizes == sizes.sorted() && Set(sizes).count == 3, "\(sizes)")
    }
}
