import Foundation
import Testing
import WarmCache
@testable import WarmCacheImaging

/// One decode serves every size; specs that differ only in encoding share their pixels.
@Suite struct CascadeTests {
    static let widths = [64, 128, 256, 512]

    @Test func planDecodesOnceAtTheLargestSize() throws {
        let source = try Fixtures.engine.open(Fixtures.example("coffee.png"), name: "coffee.png")
        let specs = Self.widths.flatMap { width in
            [ImageFormat.jpeg, .webp].map { VariantSpec(width: width, height: nil, format: $0) }
        }
        let plan = try RenderPlan.make(specs.map { [$0] }, source: source.info, name: "coffee.png",
                                       configuration: Fixtures.engine.configuration,
                                       capabilities: Fixtures.engine.capabilities)
        #expect(Set(plan.decodeOf.values) == [RenderPlan.Decode(colour: .sRGB, size: PixelSize(width: 512, height: 341))])
        #expect(plan.recipeUses.count == 4)
        #expect(plan.recipeUses.values.allSatisfy { $0 == 2 })
    }

    @Test func keepICCOnAProfiledSourceNeedsASecondDecode() throws {
        let source = try Fixtures.engine.open(Fixtures.example("chelsea.png"), name: "chelsea.png")
        let specs = [VariantSpec(width: 100, height: nil, format: .jpeg),
                     VariantSpec(width: 200, height: nil, format: .jpeg, options: EncodingOptions(keepICCProfile: true))]
        let plan = try RenderPlan.make(specs.map { [$0] }, source: source.info, name: "chelsea.png",
                                       configuration: Fixtures.engine.configuration,
                                       capabilities: Fixtures.engine.capabilities)
        #expect(Set(plan.decodeOf.values).count == 2)
    }

    @Test func withoutCascadeEachSizeHasItsOwnDecode() throws {
        let engine = try ImagingEngine(configuration: ImagingConfiguration(cascade: false))
        let source = try engine.open(Fixtures.example("coffee.png"), name: "coffee.png")
        let specs = Self.widths.map { VariantSpec(width: $0, height: nil, format: .jpeg) }
        let plan = try RenderPlan.make(specs.map { [$0] }, source: source.info, name: "coffee.png",
                                       configuration: engine.configuration, capabilities: engine.capabilities)
        #expect(Set(plan.decodeOf.values).count == 4)
        // A variant's bytes then depend on its own spec only.
        let together = try source.render(specs)
        for (index, spec) in specs.enumerated() {
            #expect(try source.render([spec])[0].data == together[index].data)
        }
    }

    @Test func askingForAPlaceholderDoesNotChangeTheVariants() throws {
        let source = try Fixtures.engine.open(Fixtures.example("rocket.jpg"), name: "rocket.jpg")
        let specs = [VariantSpec(width: 40, height: nil, format: .jpeg), VariantSpec(width: 300, height: nil, format: .webp)]
        let plain = try source.render(specs)
        let withPlaceholder = try source.render(specs, placeholder: .all)
        #expect(plain == withPlaceholder.variants)
        let small = try source.render([specs[0]], placeholder: .all)
        #expect(try source.render([specs[0]]) == small.variants)
    }

    @Test func cascadedVariantsMatchSeparateRenders() throws {
        let data = try Fixtures.example("coffee.png")
        let source = try Fixtures.engine.open(data, name: "coffee.png")
        let specs = Self.widths.map { VariantSpec(width: $0, height: nil, format: .png) }
        let cascaded = try source.render(specs)
        for (index, spec) in specs.enumerated() {
            let alone = try source.render([spec])[0]
            #expect(alone.pixelWidth == cascaded[index].pixelWidth && alone.pixelHeight == cascaded[index].pixelHeight)
            let a = try Check.decoded(alone)
            let b = try Check.decoded(cascaded[index])
            var worst = 0.0
            for (x, y) in [(5, 5), (20, 30), (40, 10), (60, 35)] {
                for (p, q) in zip(Fixtures.pixel(a, x, y), Fixtures.pixel(b, x, y)) { worst = max(worst, abs(p - q)) }
            }
            #expect(worst <= 24, "width \(spec.width ?? 0): cascade differs by \(worst)")
        }
    }

    @Test func variantsComeBackInSpecOrder() throws {
        let source = try Fixtures.engine.open(Fixtures.example("rocket.jpg"), name: "rocket.jpg")
        let specs = [VariantSpec(width: 30, height: nil, format: .png), VariantSpec(width: 200, height: nil, format: .jpeg),
                     VariantSpec(width: 30, height: nil, format: .webp), VariantSpec(width: 100, height: nil, format: .png)]
        #expect(try source.render(specs).map(\.spec) == specs)
    }
}
