import Foundation
import Testing
import WarmCache
@testable import WarmCacheImaging

/// Variants with a quality target: the lowest setting that reaches it, scored against the
/// variant's own unencoded pixels; the smallest of several candidate formats; the same bytes
/// every time.
@Suite struct PerceptualEncodingTests {
    static let widths = [64, 200, 480]

    /// The source's variants at `widths`, each as its lossless render (the reference) and as
    /// encoded by `specs(width)`.
    func render(_ name: String, _ specs: (Int) -> [VariantSpec]) throws
        -> (references: [PerceptualScoring.PreparedReference], outputs: [[EncodedVariant]]) {
        let source = try Fixtures.engine.open(try Fixtures.example(name), name: name)
        let lossless = try source.render(Self.widths.map { VariantSpec(width: $0, height: nil, format: .png) })
        let references = try lossless.map { try PerceptualScoring.reference(encoded: $0.data) }
        let perWidth = specs(Self.widths[0]).count
        let encoded = try source.render(Self.widths.flatMap(specs))
        return (references, stride(from: 0, to: encoded.count, by: perWidth).map { Array(encoded[$0..<$0 + perWidth]) })
    }

    @Test(arguments: [ImageFormat.jpeg, .webp, .avif])
    func eachVariantReachesItsTargetAtTheLowestQualityThatDoes(format: ImageFormat) throws {
        let target = 80
        let (references, outputs) = try render("coffee.png") { width in
            [VariantSpec(width: width, height: nil, format: format, qualityTarget: target)]
        }
        let source = try Fixtures.engine.open(try Fixtures.example("coffee.png"), name: "coffee.png")
        for (reference, variants) in zip(references, outputs) {
            let variant = try #require(variants.first)
            let found = try #require(variant.perceptual)
            let quality = try #require(found.quality, "an encoding, not the source's file")
            #expect(variant.spec.qualityTarget == target && variant.spec.quality == nil)
            let score = try PerceptualScoring.score(variant.data, against: reference)
            #expect(abs(score - found.score) < 0.01, "the recorded score is the kept file's")
            // Reached, or out of the format's reach: then at its best setting.
            #expect(score >= Double(target) || quality == 100, "\(format) at \(variant.pixelWidth) px: \(score)")
            // One step lower misses the target, or the search stopped close enough to it.
            if quality > 1, score - Double(target) >= QualitySearch.closeEnoughAfterTwo {
                let lower = try source.render(Self.widths.map {
                    VariantSpec(width: $0, height: nil, format: format, quality: quality - 1)
                })
                let match = try #require(lower.first { $0.pixelWidth == variant.pixelWidth })
                #expect(try PerceptualScoring.score(match.data, against: reference) < Double(target))
            }
        }
    }

    @Test func smallestKeepsTheSmallestCandidateAndTheSameBytesEveryTime() throws {
        let formats: [ImageFormat] = [.avif, .webp, .jpeg]
        // `speed: smallest` searches every candidate at every size (lower speeds let the probe rule some out).
        let candidates = { (width: Int) in
            formats.map {
                VariantSpec(width: width, height: nil, format: $0, qualityTarget: 75, options: EncodingOptions(speed: .smallest))
            }
        }
        let source = try Fixtures.engine.open(try Fixtures.example("chelsea.png"), name: "chelsea.png")
        let groups = Self.widths.map(candidates)
        let chosen = try source.render(candidates: groups, placeholder: []).variants
        let again = try source.render(candidates: groups, placeholder: []).variants
        #expect(chosen.map(\.data) == again.map(\.data))
        // Each candidate alone, searched the same way: none is smaller than the one kept.
        let alone = try source.render(Self.widths.flatMap(candidates))
        for (index, variant) in chosen.enumerated() {
            let sizes = alone[(index * formats.count)..<((index + 1) * formats.count)].map(\.data.count)
            let note = "width \(Self.widths[index]): kept \(variant.spec.format) \(variant.data.count) bytes, of \(sizes)"
            #expect(variant.data.count <= sizes.min()!, "\(note)")
            #expect(groups[index].contains(variant.spec))
        }
    }

    @Test func transparencyIsKeptAndScored() throws {
        let image = Fixtures.gradient(width: 160, height: 120, alpha: true)
        let png = try Fixtures.encode(image, as: .png)
        let source = try Fixtures.engine.open(png, name: "alpha.png")
        let variant = try #require(try source.render([VariantSpec(width: 160, height: nil, format: .webp,
                                                                  qualityTarget: 85)]).first)
        #expect(variant.hasAlpha)
        let reference = try PerceptualScoring.reference(encoded: png)
        #expect(try PerceptualScoring.score(variant.data, against: reference) >= 85)
    }

    @Test func aTargetTheFormatCannotReachKeepsItsBestSetting() throws {
        let source = try Fixtures.engine.open(try Fixtures.example("rocket.jpg"), name: "rocket.jpg")
        let variant = try #require(try source.render([VariantSpec(width: 200, height: nil, format: .jpeg,
                                                                  qualityTarget: 100)]).first)
        let found = try #require(variant.perceptual)
        #expect(found.quality == 100 && found.score < 100)
    }
}
