import Foundation
import Testing
import WarmCache
@testable import WarmCacheImaging

/// HEIC is 4:2:0 unless 4:4:4 is asked for by name: Apple's decoders have drawn libheif's 4:4:4
/// HEIC of some sizes wrongly. AVIF keeps its own rule (4:4:4 from quality 90).
@Suite("HEIC chroma for Apple's decoders")
struct HEICChromaTests {
    /// chroma_format_idc of the file's HEVC configuration (`hvcC`, ISO/IEC 14496-15): 1 is 4:2:0,
    /// 3 is 4:4:4. It sits in the low two bits of the configuration's seventeenth byte.
    static func hevcChroma(_ file: Data) -> Int? {
        ColourSignallingTests.properties("hvcC", in: file).first.flatMap { $0.count > 16 ? Int($0[16] & 3) : nil }
    }

    /// AV1's configuration (`av1C`): whether chroma is subsampled horizontally (4:2:0 sets both bits).
    static func av1Subsampled(_ file: Data) -> Bool? {
        ColourSignallingTests.properties("av1C", in: file).first.flatMap { $0.count > 2 ? $0[2] & 0b1100 != 0 : nil }
    }

    static func encode(_ format: ImageFormat, quality: Int, subsampling: Bool?) throws -> Data {
        var spec = VariantSpec(width: nil, height: nil, format: format, quality: quality)
        spec.options.chromaSubsampling = subsampling
        return try Encoder.encode(Fixtures.gradient(width: 96, height: 72),
                                  settings: .resolve(spec, defaults: EncoderDefaults()))
    }

    @Test func heicIs420AtEveryQualityUnlessAsked() throws {
        for quality in [50, 90, 100] {
            #expect(Self.hevcChroma(try Self.encode(.heic, quality: quality, subsampling: nil)) == 1, "quality \(quality)")
        }
        #expect(Self.hevcChroma(try Self.encode(.heic, quality: 95, subsampling: false)) == 3)
    }

    @Test func avifKeepsFullChromaFromQuality90() throws {
        #expect(Self.av1Subsampled(try Self.encode(.avif, quality: 50, subsampling: nil)) == true)
        #expect(Self.av1Subsampled(try Self.encode(.avif, quality: 95, subsampling: nil)) == false)
    }
}
