import Foundation
import Testing
import WarmCache
@testable import WarmCacheImaging

/// Fit modes rendered for real and decoded back with libvips.
@Suite struct FitRenderingTests {
    /// 300x200: left half red, right half blue.
    static let halves: Data = {
        let image = Fixtures.image(width: 300, height: 200, bands: 3) { x, _ in x < 150 ? [220, 20, 20] : [20, 20, 220] }
        return try! Fixtures.encode(image, as: .png)
    }()

    @Test(arguments: [
        (VariantSpec(width: 120, height: 120, format: .png), 120, 80),
        (VariantSpec(width: 60, height: nil, scale: 2, format: .png), 120, 80),
        (VariantSpec(width: nil, height: 50, scale: 3, format: .png), 225, 150),
        (VariantSpec(width: 100, height: 100, fit: .cover(.centre), format: .png), 100, 100),
        (VariantSpec(width: 100, height: 40, fit: .fill, format: .png), 100, 40),
        (VariantSpec(width: 100, height: 100, fit: .contain(background: .white), format: .png), 100, 100),
        (VariantSpec(width: 1000, height: 1000, format: .png), 300, 200),
        (VariantSpec(width: 1000, height: 1000, fit: .cover(.centre), format: .png), 200, 200),
        (VariantSpec(width: 600, height: nil, allowUpscale: true, format: .png), 600, 400),
    ])
    func outputSizes(spec: VariantSpec, width: Int, height: Int) throws {
        let variant = try Check.renderOne(Self.halves, spec)
        #expect(variant.pixelWidth == width && variant.pixelHeight == height)
        _ = try Check.decoded(variant)
    }

    @Test func coverKeepsTheSideOfTheGravity() throws {
        let west = try Check.decoded(Check.renderOne(Self.halves, VariantSpec(width: 50, height: 50, fit: .cover(.west), format: .png)))
        let east = try Check.decoded(Check.renderOne(Self.halves, VariantSpec(width: 50, height: 50, fit: .cover(.east), format: .png)))
        #expect(Check.close(Fixtures.pixel(west, 25, 25), [220, 20, 20]))
        #expect(Check.close(Fixtures.pixel(east, 25, 25), [20, 20, 220]))
    }

    @Test(arguments: [CropGravity.attention, .entropy])
    func smartCropsProduceTheBox(gravity: CropGravity) throws {
        let variant = try Check.renderOne(Fixtures.example("chelsea.png"),
                                          VariantSpec(width: 80, height: 120, fit: .cover(gravity), format: .jpeg))
        #expect(variant.pixelWidth == 80 && variant.pixelHeight == 120)
        _ = try Check.decoded(variant)
    }

    @Test func containPadsWithTheBackgroundColour() throws {
        let green = RGBAColor(red: 0, green: 200, blue: 0)
        let spec = VariantSpec(width: 90, height: 90, fit: .contain(background: green), format: .png)
        let image = try Check.decoded(Check.renderOne(Self.halves, spec))
        #expect(image.size == PixelSize(width: 90, height: 90))
        #expect(Check.close(Fixtures.pixel(image, 45, 2), [0, 200, 0], tolerance: 1))
        #expect(Check.close(Fixtures.pixel(image, 10, 45), [220, 20, 20]))
        #expect(!image.hasAlpha)
    }

    @Test func containWithTransparencyAddsAlpha() throws {
        let spec = VariantSpec(width: 90, height: 90, fit: .contain(background: .transparent), format: .webp,
                               options: EncodingOptions(lossless: true))
        let variant = try Check.renderOne(Self.halves, spec)
        let image = try Check.decoded(variant)
        #expect(variant.hasAlpha && image.hasAlpha)
        #expect(Fixtures.pixel(image, 45, 2).last == 0)
        #expect(Fixtures.pixel(image, 45, 45).last == 255)
    }

    @Test func greySourcePaddedWithColourBecomesRGB() throws {
        let spec = VariantSpec(width: 100, height: 50, fit: .contain(background: RGBAColor(red: 255, green: 0, blue: 0)),
                               format: .png)
        let image = try Check.decoded(Check.renderOne(Fixtures.example("camera.png"), spec))
        #expect(image.bands == 3)
        #expect(Check.close(Fixtures.pixel(image, 2, 25), [255, 0, 0], tolerance: 1))
    }

    @Test func aspectIsPreservedOnRealPhotos() throws {
        let data = try Fixtures.example("coffee.png")
        for width in [37, 64, 199, 600] {
            let variant = try Check.renderOne(data, VariantSpec(width: width, height: nil, format: .jpeg))
            #expect(variant.pixelWidth == width)
            #expect(variant.pixelHeight == Int((Double(width) * 400 / 600).rounded()))
        }
    }
}
