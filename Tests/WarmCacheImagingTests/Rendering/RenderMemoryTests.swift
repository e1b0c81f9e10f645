import Testing
import WarmCache
@testable import WarmCacheImaging

/// The memory a render is estimated to need, from its plan: it grows with the pixels decoded and
/// encoded, with the encoder, and with a quality search; it never counts pixels twice for candidates.
@Suite struct RenderMemoryTests {
    static func source(_ width: Int, _ height: Int, alpha: Bool = false) -> SourceImageInfo {
        SourceImageInfo(format: .jpeg, loader: "jpeg", pixelWidth: width, pixelHeight: height, orientation: 1,
                        hasAlpha: alpha, pageCount: 1, isAnimated: false, hasICCProfile: false, colorModel: .rgb,
                        byteCount: 1)
    }

    static func needs(_ outputs: [[VariantSpec]], _ source: SourceImageInfo) throws -> Int {
        let plan = try RenderPlan.make(outputs, source: source, name: "photo.jpg",
                                       configuration: Fixtures.engine.configuration,
                                       capabilities: Fixtures.engine.capabilities)
        return plan.peakMemory(source: source)
    }

    static func hero(_ format: ImageFormat, target: Int? = nil, width: Int = 3072) -> VariantSpec {
        VariantSpec(width: width, height: nil, format: format, qualityTarget: target)
    }

    @Test func moreEncodedPixelsNeedMore() throws {
        let photo = Self.source(6000, 4000)
        let small = try Self.needs([[Self.hero(.avif, width: 1024)]], photo)
        let large = try Self.needs([[Self.hero(.avif)]], photo)
        #expect(small < large)
        // A 3072 px AVIF hero: the encoder's ~24 bytes per pixel dominate.
        #expect(large > 3072 * 2048 * 24)
        #expect(large < 600 << 20)
    }

    @Test func encodersDiffer() throws {
        let photo = Self.source(4000, 3000)
        let jpeg = try Self.needs([[Self.hero(.jpeg)]], photo)
        let webp = try Self.needs([[Self.hero(.webp)]], photo)
        let avif = try Self.needs([[Self.hero(.avif)]], photo)
        #expect(jpeg < webp && webp < avif)
    }

    @Test func aSearchNeedsItsReferenceAndTrialsOnTop() throws {
        let photo = Self.source(4000, 3000)
        let fixed = try Self.needs([[Self.hero(.jpeg)]], photo)
        let searched = try Self.needs([[Self.hero(.jpeg, target: 80)]], photo)
        #expect(searched > fixed + 3072 * 2304 * 3)
    }

    @Test func candidatesCountTheLargestEncoderOnce() throws {
        let photo = Self.source(4000, 3000)
        let avif = try Self.needs([[Self.hero(.avif, target: 80)]], photo)
        let smallest = try Self.needs([[Self.hero(.avif, target: 80), Self.hero(.jpeg, target: 80),
                                        Self.hero(.webp, target: 80)]], photo)
        #expect(smallest == avif)
    }

    @Test func largerSourcesDecodeMore() throws {
        let spec = [[Self.hero(.jpeg, width: 4000)]]
        let twelve = try Self.needs(spec, Self.source(4000, 3000))
        let twentyFour = try Self.needs(spec, Self.source(6000, 4000))
        #expect(twelve < twentyFour)
    }
}
