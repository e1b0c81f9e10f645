import CVipsShim
import Foundation
import Testing
import WarmCache
@testable import WarmCacheImaging

/// The decodes are steps of a ladder that depends on the source alone (its size halved again and
/// again); each size is resampled from the smallest step that covers it, and specs that differ
/// only in encoding share their pixels.
@Suite struct CascadeTests {
    static let widths = [64, 128, 256, 512]

    @Test func planDecodesEachSizeFromItsLadderStep() throws {
        let source = try Fixtures.engine.open(Fixtures.example("coffee.png"), name: "coffee.png")
        let specs = Self.widths.flatMap { width in
            [ImageFormat.jpeg, .webp].map { VariantSpec(width: width, height: nil, format: $0) }
        }
        let plan = try RenderPlan.make(specs.map { [$0] }, source: source.info, name: "coffee.png",
                                       configuration: Fixtures.engine.configuration,
                                       capabilities: Fixtures.engine.capabilities)
        // coffee.png is 600x400: 512 needs the source itself, 256 its half, 128 a quarter, 64 an eighth.
        let steps = [600, 300, 150, 75].map { RenderPlan.Decode(colour: .sRGB, size: PixelSize(width: $0, height: $0 * 2 / 3)) }
        #expect(Set(plan.decodeOf.values) == Set(steps))
        // A PNG cannot shrink on load: it is decoded once, and each step is the one above halved.
        #expect(plan.derivedFrom == [steps[1]: steps[0], steps[2]: steps[1], steps[3]: steps[2]])
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

    @Test func aJPEGThatFitsIsDecodedOnceAndHalved() throws {
        let source = try Fixtures.engine.open(Fixtures.example("rocket.jpg"), name: "rocket.jpg")
        let specs = [300, 150, 70, 30].map { VariantSpec(width: $0, height: nil, format: .jpeg) }
        let plan = try RenderPlan.make(specs.map { [$0] }, source: source.info, name: "rocket.jpg",
                                       configuration: Fixtures.engine.configuration,
                                       capabilities: Fixtures.engine.capabilities)
        // 640x427 fits in 2048 px: decoded once whole; steps 1 (320) to 4 (40) are each the one above halved.
        #expect(Set(plan.decodeOf.values.map(\.size.width)) == [320, 160, 80, 40])
        #expect(Set(plan.derivedFrom.values.map(\.size.width)) == [640, 320, 160, 80])
    }

    @Test func aLargeJPEGShrinksOnLoadDownToTheFirstStepThatFits() throws {
        var info = try Fixtures.engine.open(Fixtures.example("rocket.jpg"), name: "rocket.jpg").info
        (info.pixelWidth, info.pixelHeight) = (5120, 2880)
        let specs = [4000, 1024, 512, 64].map { VariantSpec(width: $0, height: nil, format: .jpeg) }
        let plan = try RenderPlan.make(specs.map { [$0] }, source: info, name: "large.jpg",
                                       configuration: Fixtures.engine.configuration,
                                       capabilities: Fixtures.engine.capabilities)
        // 4000 needs the source; 1024 step 2 (1280, the first that fits in 2048), shrunk on load;
        // 512 and 64 steps 3 (640) and 6 (80), halved from step 2 rather than decoded again.
        #expect(Set(plan.decodeOf.values.map(\.size.width)) == [5120, 1280, 640, 80])
        #expect(Set(plan.derivedFrom.keys.map(\.size.width)) == [640, 320, 160, 80])
        #expect(plan.derivedFrom.values.allSatisfy { $0.size.width < 5120 })
    }

    @Test func theProbeIsResampledFromADecodeNeverFromAHalvedStep() throws {
        let source = try Fixtures.engine.open(Fixtures.example("coffee.png"), name: "coffee.png")
        let spec = VariantSpec(width: 300, height: nil, format: .webp, qualityTarget: 80)
        let plan = try RenderPlan.make([[spec]], source: source.info, name: "coffee.png",
                                       configuration: Fixtures.engine.configuration,
                                       capabilities: Fixtures.engine.capabilities)
        // The variant reads step 1 (300 px, halved); the 256 px probe the whole decode.
        #expect(plan.decodeOf.values.map(\.size.width) == [300])
        #expect(plan.probeDecode?.size == PixelSize(width: 600, height: 400))
    }

    @Test func halvingAveragesTwoByTwoBlocksAndRoundsTheSizeDown() throws {
        // 5x3 RGB: the pixel at (x, y) holds 10x + 2y in every band.
        let pixels = (0..<3).flatMap { y in (0..<5).flatMap { x in [UInt8](repeating: UInt8(10 * x + 2 * y), count: 3) } }
        let image = VipsImage(taking: try #require(wc_image_from_pixels(pixels, 5, 3, 3)))
        let half = try image.halved().copiedToMemory()
        #expect(half.size == PixelSize(width: 2, height: 1))
        var values = [Double](repeating: 0, count: 3)
        _ = wc_getpoint(half.pointer, 1, 0, &values, 3)
        #expect(values[0] == 26)  // the mean of 20, 22, 30 and 32; the odd last column and row are dropped
    }

    @Test func halvingASideOnePixelLongAveragesAlongTheOther() throws {
        // A 5x1 strip: 0, 10, 20, 30, 40 halves to the means of pairs, 5 and 25 (rounded half up).
        let strip = VipsImage(taking: try #require(wc_image_from_pixels([0, 10, 20, 30, 40], 5, 1, 1)))
        let half = try strip.halved()
        #expect(half.size == PixelSize(width: 2, height: 1))
        var values = [Double](repeating: 0, count: 1)
        _ = wc_getpoint(half.pointer, 1, 0, &values, 1)
        #expect(values[0] == 25)
        let column = VipsImage(taking: try #require(wc_image_from_pixels([0, 10, 20], 1, 3, 1)))
        #expect(try column.halved().size == PixelSize(width: 1, height: 1))
        let dot = VipsImage(taking: try #require(wc_image_from_pixels([7], 1, 1, 1)))
        #expect(try dot.halved().size == PixelSize(width: 1, height: 1))
    }

    @Test func aStripOnePixelHighRendersDownItsLadder() throws {
        // 4,000x3: a 100 px variant reads step 5 (125x1), halved through steps that are one pixel high.
        let pixels = [UInt8](repeating: 128, count: 4_000 * 3 * 3)
        let strip = VipsImage(taking: try #require(wc_image_from_pixels(pixels, 4_000, 3, 3)))
        let source = try Fixtures.engine.open(try Fixtures.encode(strip, as: .png), name: "strip.png")
        let rendered = try source.render([VariantSpec(width: 100, height: nil, format: .png)])
        #expect(try Check.decoded(rendered[0]).size == PixelSize(width: 100, height: 1))
    }

    @Test func halvingWeighsColourByAlpha() throws {
        // Three opaque red pixels and a transparent blue one: its colour must not bleed in.
        let pixels: [UInt8] = [255, 0, 0, 255, 255, 0, 0, 255, 255, 0, 0, 255, 0, 0, 255, 0]
        let image = VipsImage(taking: try #require(wc_image_from_pixels(pixels, 2, 2, 4)))
        let half = try image.halved()
        var values = [Double](repeating: 0, count: 4)
        _ = wc_getpoint(half.pointer, 0, 0, &values, 4)
        #expect(values == [255, 0, 0, 191])
    }

    @Test func cascadedVariantsMatchSeparateRenders() throws {
        let data = try Fixtures.example("coffee.png")
        let source = try Fixtures.engine.open(data, name: "coffee.png")
        let specs = Self.widths.map { VariantSpec(width: $0, height: nil, format: .png) }
        let cascaded = try source.render(specs)
        for (index, spec) in specs.enumerated() {
            let alone = try source.render([spec])[0]
            // The same step, the same pixels: the same file.
            #expect(alone == cascaded[index], "width \(spec.width ?? 0)")
        }
    }

    @Test func variantsComeBackInSpecOrder() throws {
        let source = try Fixtures.engine.open(Fixtures.example("rocket.jpg"), name: "rocket.jpg")
        let specs = [VariantSpec(width: 30, height: nil, format: .png), VariantSpec(width: 200, height: nil, format: .jpeg),
                     VariantSpec(width: 30, height: nil, format: .webp), VariantSpec(width: 100, height: nil, format: .png)]
        #expect(try source.render(specs).map(\.spec) == specs)
    }
}
