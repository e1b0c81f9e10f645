import Foundation
import Testing
import WarmCache
@testable import WarmCacheImaging

/// A variant's bytes are a function of the source, its own spec and the engine's settings: never
/// of the other specs rendered with it (their sizes, formats or searches), so a clean build and an
/// incremental one ship the same file under one key.
@Suite struct ReproducibleRenderTests {
    /// The card of the issue: 320 wide, at a quality target, alone and among a thumbnail and a hero.
    static func card(_ format: ImageFormat) -> VariantSpec {
        VariantSpec(width: 320, height: nil, format: format, qualityTarget: 80)
    }

    static let others = [
        VariantSpec(width: 64, height: 64, fit: .cover(.centre), format: .webp, qualityTarget: 80),
        VariantSpec(width: 64, height: 64, fit: .cover(.centre), format: .jpeg, qualityTarget: 80),
        VariantSpec(width: 600, height: nil, format: .webp, qualityTarget: 80),
        VariantSpec(width: 200, height: nil, format: .jpeg, quality: 70),
    ]

    @Test(arguments: ["rocket.jpg", "coffee.png"])
    func aCardAloneAndAmongOtherPresetsIsTheSameFile(name: String) throws {
        let source = try Fixtures.engine.open(try Fixtures.example(name), name: name)
        let card: [VariantSpec] = [Self.card(.webp), Self.card(.jpeg), VariantSpec(width: 320, height: nil, format: .jpeg)]
        // A `smallest` card: its candidates are its own settings, searched the same way alone or not.
        let smallest = [Self.card(.webp), Self.card(.jpeg)]
        let alone = try source.render(candidates: card.map { [$0] } + [smallest], placeholder: [])
        let among = try source.render(candidates: Self.others.map { [$0] } + card.map { [$0] } + [smallest],
                                      placeholder: .all)
        #expect(alone.variants == Array(among.variants.suffix(alone.variants.count)))
        // In the opposite order, too.
        let reversed = try source.render(candidates: (Self.others.map { [$0] } + card.map { [$0] } + [smallest]).reversed(),
                                         placeholder: [])
        #expect(Array(reversed.variants.prefix(alone.variants.count)) == alone.variants.reversed())
    }

    @Test func twoScalesClampedToTheSamePixelsAreOneEncode() throws {
        // camera.png is 512x512: a 320-point card at 2x and 3x is 512x512 both times.
        let source = try Fixtures.engine.open(try Fixtures.example("camera.png"), name: "camera.png")
        let specs = [2, 3].map { VariantSpec(width: 320, height: nil, scale: $0, format: .webp, qualityTarget: 80) }
        let plan = try RenderPlan.make(specs.map { [$0] }, source: source.info, name: "camera.png",
                                       configuration: Fixtures.engine.configuration,
                                       capabilities: Fixtures.engine.capabilities)
        #expect(plan.sameOutputs() == [1: 0], "the 3x output is the 2x one's file")
        var encoded = 0
        let rendered = try source.render(candidates: specs.map { [$0] }, placeholder: []) { encoded += 1 }
        #expect(encoded == 2, "both variants are reported")
        #expect(rendered.variants.map(\.spec) == specs)
        #expect(rendered.variants[0].data == rendered.variants[1].data)
        #expect(rendered.variants.allSatisfy { $0.pixelWidth == 512 && $0.pixelHeight == 512 })
        // The same file as the 2x card rendered alone.
        #expect(try source.render([specs[1]])[0].data == rendered.variants[0].data)
    }

    @Test func eachVariantIsReportedAsItIsEncoded() throws {
        let source = try Fixtures.engine.open(try Fixtures.example("rocket.jpg"), name: "rocket.jpg")
        let specs = Self.others
        var reported = 0
        let rendered = try source.render(candidates: specs.map { [$0] }, placeholder: []) { reported += 1 }
        #expect(reported == specs.count && rendered.variants.count == specs.count)
    }
}
