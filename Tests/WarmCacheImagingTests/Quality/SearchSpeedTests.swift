import Foundation
import Testing
import WarmCache
@testable import WarmCacheImaging

/// `speed: fast | balanced | smallest`: each level reaches the target, gives the same bytes every
/// time and whatever else is rendered with it, and a slower level ships fewer bytes.
@Suite struct SearchSpeedTests {
    /// iOS 16's `smallest` candidates for a variant `width` wide, at `speed`.
    static func smallest(_ width: Int, _ speed: SearchSpeed) -> [VariantSpec] {
        [ImageFormat.avif, .webp, .jpeg].map {
            VariantSpec(width: width, height: nil, format: $0, qualityTarget: 80, options: EncodingOptions(speed: speed))
        }
    }

    @Test func eachLevelReachesTheTargetAndTheSlowestShipsTheFewestBytes() throws {
        let source = try Fixtures.engine.open(try Fixtures.example("coffee.png"), name: "coffee.png")
        var totals: [SearchSpeed: Int] = [:]
        for speed in SearchSpeed.allCases {
            let groups = [320, 600].map { Self.smallest($0, speed) }
            let variants = try source.render(candidates: groups, placeholder: []).variants
            #expect(try source.render(candidates: groups, placeholder: []).variants == variants, "\(speed)")
            for variant in variants {
                let found = try #require(variant.perceptual)
                #expect(found.score >= 80, "\(speed): \(variant.spec.format) at \(variant.pixelWidth) px scored \(found.score)")
            }
            totals[speed] = variants.reduce(0) { $0 + $1.data.count }
        }
        #expect(totals[.smallest]! <= totals[.balanced]! && totals[.smallest]! <= totals[.fast]!, "\(totals)")
    }

    /// The probe decides which formats a larger variant tries (and AVIF's chroma): it is the
    /// source at one fixed size, so a card is the same file alone and among other presets.
    @Test(arguments: SearchSpeed.allCases)
    func aCardIsTheSameFileAloneAndAmongOtherPresets(speed: SearchSpeed) throws {
        let source = try Fixtures.engine.open(try Fixtures.example("coffee.png"), name: "coffee.png")
        let card = Self.smallest(320, speed)
        let others = [Self.smallest(64, speed), Self.smallest(600, speed)]
        let alone = try source.render(candidates: [card], placeholder: []).variants
        let among = try source.render(candidates: others + [card], placeholder: .all).variants
        #expect(alone == Array(among.suffix(1)))
    }

    @Test func theKeyNamesALevelOnlyForAQualityTargetAndOnlyIfNotTheDefault() {
        let fast = EncoderTable.canonical(VariantSpec(width: 100, height: nil, format: .avif, qualityTarget: 80,
                                                      options: EncodingOptions(speed: .fast)))
        #expect(fast.options.speed == .fast)
        #expect(VariantKey(source: SourceIdentifier("a"), spec: fast).rawValue == "a|100x_|@1x|inside|avif-target80-fast|-")
        let fixed = EncoderTable.canonical(VariantSpec(width: 100, height: nil, format: .avif, quality: 60,
                                                       options: EncodingOptions(speed: .fast)))
        #expect(fixed.options.speed == nil)
        let balanced = EncoderTable.canonical(VariantSpec(width: 100, height: nil, format: .avif, qualityTarget: 80,
                                                          options: EncodingOptions(speed: .balanced)))
        #expect(balanced.options.speed == nil)
        for speed in SearchSpeed.allCases {
            let key = "a|100x_|@1x|inside|webp-target80-\(speed.rawValue)|-"
            #expect(VariantKey(parsing: key)?.spec.options.speed == speed)
        }
        #expect(VariantKey(parsing: "a|100x_|@1x|inside|webp-target80-fast-e4|-") == nil, "options in their order")
    }
}
