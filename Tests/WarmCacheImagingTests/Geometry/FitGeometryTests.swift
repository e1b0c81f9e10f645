import Testing
import WarmCache
@testable import WarmCacheImaging

/// The size rules, as pure arithmetic (no libvips involved).
@Suite struct FitGeometryTests {
    let landscape = PixelSize(width: 400, height: 200)

    func plan(_ box: (Int?, Int?), _ fit: FitMode, upscale: Bool = false, source: PixelSize? = nil) -> FitPlan {
        FitGeometry.plan(source: source ?? landscape, box: box, fit: fit, allowUpscale: upscale)
    }

    @Test func insideKeepsAspectWithinTheBox() {
        #expect(plan((100, 100), .inside) == FitPlan(scaled: PixelSize(width: 100, height: 50), finish: .none))
        #expect(plan((300, 60), .inside).output == PixelSize(width: 120, height: 60))
    }

    @Test func singleSideBoxesScaleToThatSide() {
        #expect(plan((100, nil), .inside).output == PixelSize(width: 100, height: 50))
        #expect(plan((nil, 50), .inside).output == PixelSize(width: 100, height: 50))
        #expect(plan((100, nil), .cover(.centre)).output == PixelSize(width: 100, height: 50))
        #expect(plan((nil, 20), .fill).output == PixelSize(width: 40, height: 20))
        #expect(plan((nil, nil), .inside).output == landscape)
    }

    @Test func neverUpscalesUnlessAllowed() {
        #expect(plan((800, 800), .inside).output == landscape)
        #expect(plan((1000, nil), .inside).output == landscape)
        #expect(plan((800, 800), .inside, upscale: true).output == PixelSize(width: 800, height: 400))
        #expect(plan((nil, 400), .inside, upscale: true).output == PixelSize(width: 800, height: 400))
    }

    @Test func coverCropsAroundTheGravity() {
        let centre = plan((100, 100), .cover(.centre))
        #expect(centre.scaled == PixelSize(width: 200, height: 100))
        #expect(centre.finish == .crop(PixelRect(x: 50, y: 0, width: 100, height: 100)))
        #expect(plan((100, 100), .cover(.west)).finish == .crop(PixelRect(x: 0, y: 0, width: 100, height: 100)))
        #expect(plan((100, 100), .cover(.southeast)).finish == .crop(PixelRect(x: 100, y: 0, width: 100, height: 100)))
        let portraitBox = plan((50, 200), .cover(.north))
        #expect(portraitBox.scaled == PixelSize(width: 400, height: 200))
        #expect(portraitBox.output == PixelSize(width: 50, height: 200))
    }

    @Test func coverUsesLibvipsSmartCropForAttentionAndEntropy() {
        #expect(plan((100, 100), .cover(.attention)).finish == .smartCrop(PixelSize(width: 100, height: 100), .attention))
        #expect(plan((100, 100), .cover(.entropy)).finish == .smartCrop(PixelSize(width: 100, height: 100), .entropy))
    }

    @Test func coverWithABoxLargerThanTheSourceKeepsTheLargestCropOfTheBoxAspect() {
        // 1000x1000 box on 400x200: the largest square in the source, unscaled.
        let square = plan((1000, 1000), .cover(.centre))
        #expect(square.scaled == landscape)
        #expect(square.finish == .crop(PixelRect(x: 100, y: 0, width: 200, height: 200)))
        // 900x300 (3:1) on 400x200: 400 wide, 133 high.
        #expect(plan((900, 300), .cover(.north)).output == PixelSize(width: 400, height: 133))
        // Only one side too large still never upscales: 300x300 on 400x200.
        #expect(plan((300, 300), .cover(.centre)).output == PixelSize(width: 200, height: 200))
        #expect(plan((1000, 1000), .cover(.centre), upscale: true).output == PixelSize(width: 1000, height: 1000))
    }

    @Test func fillStretchesToTheBox() {
        #expect(plan((100, 100), .fill) == FitPlan(scaled: PixelSize(width: 100, height: 100), finish: .none))
        // Larger than the source: the box shrinks uniformly until it fits (no axis is enlarged).
        #expect(plan((800, 800), .fill).output == PixelSize(width: 200, height: 200))
        #expect(plan((800, 800), .fill, upscale: true).output == PixelSize(width: 800, height: 800))
    }

    @Test func containPadsToTheExactBox() {
        let contain = plan((100, 100), .contain(background: .white))
        #expect(contain.scaled == PixelSize(width: 100, height: 50))
        #expect(contain.finish == .embed(canvas: PixelSize(width: 100, height: 100), origin: PixelPoint(x: 0, y: 25)))
        // Larger than the source: the smallest canvas of the box's aspect holding the unscaled source.
        let large = plan((800, 800), .contain(background: .white))
        #expect(large.scaled == landscape)
        #expect(large.finish == .embed(canvas: PixelSize(width: 400, height: 400), origin: PixelPoint(x: 0, y: 100)))
        // Same aspect: nothing to pad.
        #expect(plan((200, 100), .contain(background: .white)).finish == .none)
    }

    @Test func roundsToWholePixelsAndNeverBelowOne() {
        let odd = PixelSize(width: 451, height: 300)
        #expect(plan((256, nil), .inside, source: odd).output == PixelSize(width: 256, height: 170))
        #expect(plan((1, 1), .inside, source: PixelSize(width: 1000, height: 10)).output == PixelSize(width: 1, height: 1))
    }

    @Test func specBoxesArePointsTimesScale() {
        let spec = VariantSpec(width: 100, height: 100, scale: 2, fit: .cover(.centre), format: .jpeg)
        #expect(FitGeometry.plan(source: landscape, spec: spec).output == PixelSize(width: 200, height: 200))
        let three = VariantSpec(width: 50, height: nil, scale: 3, format: .jpeg)
        #expect(FitGeometry.plan(source: landscape, spec: three).output == PixelSize(width: 150, height: 75))
    }
}
