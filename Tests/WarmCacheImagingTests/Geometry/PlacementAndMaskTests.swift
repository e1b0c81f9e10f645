import Testing
import WarmCache
@testable import WarmCacheImaging

@Suite struct CropPlacementTests {
    let image = PixelSize(width: 300, height: 200)
    let crop = PixelSize(width: 100, height: 100)

    @Test(arguments: [
        (CropGravity.centre, 100, 50), (.north, 100, 0), (.south, 100, 100), (.east, 200, 50), (.west, 0, 50),
        (.northeast, 200, 0), (.northwest, 0, 0), (.southeast, 200, 100), (.southwest, 0, 100),
    ])
    func compassGravities(gravity: CropGravity, x: Int, y: Int) {
        #expect(CropPlacement.origin(of: crop, in: image, gravity: gravity) == PixelPoint(x: x, y: y))
    }
}

@Suite struct RoundedCornerMaskTests {
    @Test func cornersAreTransparentAndTheMiddleOpaque() {
        let size = PixelSize(width: 40, height: 30)
        let mask = RoundedCornerMask.coverage(size: size, radius: 10)
        func at(_ x: Int, _ y: Int) -> UInt8 { mask[y * size.width + x] }
        for (x, y) in [(0, 0), (39, 0), (0, 29), (39, 29)] { #expect(at(x, y) == 0) }
        for (x, y) in [(20, 15), (20, 0), (0, 15), (39, 15), (20, 29), (10, 10)] { #expect(at(x, y) == 255) }
    }

    @Test func edgesAreAntialiasedAndSymmetric() {
        let size = PixelSize(width: 50, height: 50)
        let mask = RoundedCornerMask.coverage(size: size, radius: 20)
        let partial = mask.filter { $0 > 0 && $0 < 255 }
        #expect(!partial.isEmpty)
        for y in 0..<50 {
            for x in 0..<50 {
                #expect(mask[y * 50 + x] == mask[y * 50 + (49 - x)])
                #expect(mask[y * 50 + x] == mask[(49 - y) * 50 + x])
            }
        }
    }

    @Test func radiusIsClampedToHalfTheShortSide() {
        let mask = RoundedCornerMask.coverage(size: PixelSize(width: 20, height: 10), radius: 500)
        #expect(mask[5 * 20 + 10] == 255)
        #expect(mask[0] == 0)
    }
}

@Suite struct BaseSizeTests {
    let source = PixelSize(width: 4000, height: 3000)

    @Test func decodesAtTheLargestNeededSize() {
        let sizes = [PixelSize(width: 64, height: 48), PixelSize(width: 1024, height: 768), PixelSize(width: 256, height: 192)]
        #expect(RenderPlan.baseSize(source: source, covering: sizes) == PixelSize(width: 1024, height: 768))
    }

    @Test func coversStretchedSizesOnBothAxes() {
        let sizes = [PixelSize(width: 100, height: 300), PixelSize(width: 400, height: 300)]
        let base = RenderPlan.baseSize(source: source, covering: sizes)
        #expect(base.width >= 400 && base.height >= 300)
    }

    @Test func neverDecodesAboveTheSourceSize() {
        #expect(RenderPlan.baseSize(source: source, covering: [PixelSize(width: 8000, height: 6000)]) == source)
    }
}
