import Foundation
import Testing
import WarmCache
@testable import WarmCacheImaging

/// Every EXIF orientation comes out upright.
@Suite struct OrientationTests {
    /// The upright picture: 64x48 quadrants, red top-left, green top-right, blue bottom-left,
    /// white bottom-right.
    static let uprightWidth = 64
    static let uprightHeight = 48

    static func uprightColour(_ x: Int, _ y: Int) -> [UInt8] {
        switch (x < uprightWidth / 2, y < uprightHeight / 2) {
        case (true, true): return [230, 10, 10]
        case (false, true): return [10, 230, 10]
        case (true, false): return [10, 10, 230]
        case (false, false): return [240, 240, 240]
        }
    }

    /// Where the stored pixel (x, y) of a `width x height` stored image appears when displayed
    /// with `orientation` (EXIF 1–8).
    static func displayed(_ orientation: Int, _ x: Int, _ y: Int, width: Int, height: Int) -> (Int, Int) {
        switch orientation {
        case 2: return (width - 1 - x, y)
        case 3: return (width - 1 - x, height - 1 - y)
        case 4: return (x, height - 1 - y)
        case 5: return (y, x)
        case 6: return (height - 1 - y, x)
        case 7: return (height - 1 - y, width - 1 - x)
        case 8: return (y, width - 1 - x)
        default: return (x, y)
        }
    }

    /// A JPEG whose stored pixels, displayed with `orientation`, show the upright picture.
    static func storedJPEG(orientation: Int) throws -> Data {
        let swaps = orientation >= 5
        let width = swaps ? uprightHeight : uprightWidth
        let height = swaps ? uprightWidth : uprightHeight
        let stored = Fixtures.image(width: width, height: height, bands: 3) { x, y in
            let (ux, uy) = displayed(orientation, x, y, width: width, height: height)
            return uprightColour(ux, uy)
        }
        return try Fixtures.encodeKeepingMetadata(Fixtures.setting("orientation", to: orientation, on: stored), as: .jpeg)
    }

    @Test(arguments: 1...8)
    func renderedUpright(orientation: Int) throws {
        let data = try Self.storedJPEG(orientation: orientation)
        let source = try Fixtures.engine.open(data, name: "orientation-\(orientation).jpg")
        #expect(source.info.orientation == orientation)
        #expect(source.info.pixelSize == PixelSize(width: Self.uprightWidth, height: Self.uprightHeight))

        let variant = try source.render([VariantSpec(width: 32, height: nil, format: .png)])[0]
        let image = try Check.decoded(variant)
        #expect(image.size == PixelSize(width: 32, height: 24))
        #expect(Check.close(Fixtures.pixel(image, 4, 4), [230, 10, 10], tolerance: 30))
        #expect(Check.close(Fixtures.pixel(image, 27, 4), [10, 230, 10], tolerance: 30))
        #expect(Check.close(Fixtures.pixel(image, 4, 19), [10, 10, 230], tolerance: 30))
        #expect(Check.close(Fixtures.pixel(image, 27, 19), [240, 240, 240], tolerance: 30))
    }

    @Test func nonSquareCoverOfARotatedSourceUsesUprightAxes() throws {
        let data = try Self.storedJPEG(orientation: 6)
        let variant = try Check.renderOne(data, VariantSpec(width: 40, height: 20, fit: .cover(.north), format: .jpeg))
        let image = try Check.decoded(variant)
        #expect(image.size == PixelSize(width: 40, height: 20))
        #expect(Check.close(Fixtures.pixel(image, 3, 3), [230, 10, 10], tolerance: 40))
    }
}
