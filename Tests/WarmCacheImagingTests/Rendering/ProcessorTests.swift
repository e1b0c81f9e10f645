import Foundation
import Testing
import WarmCache
@testable import WarmCacheImaging

/// Processors run in order after sizing; lengths are points x scale.
@Suite struct ProcessorTests {
    /// 100x100 of a flat orange.
    static let flat: Data = try! Fixtures.encode(Fixtures.image(width: 100, height: 100, bands: 3) { _, _ in [230, 120, 30] }, as: .png)
    /// 100x100 of 1-pixel black and white stripes.
    static let stripes: Data = try! Fixtures.encode(Fixtures.image(width: 100, height: 100, bands: 3) { x, _ in
        x % 2 == 0 ? [0, 0, 0] : [255, 255, 255]
    }, as: .png)

    @Test func roundCornersProducesAlpha() throws {
        let spec = VariantSpec(width: 50, height: 50, scale: 2, format: .png, processors: [.roundCorners(radius: 10)])
        let variant = try Check.renderOne(Self.flat, spec)
        #expect(variant.hasAlpha)
        let image = try Check.decoded(variant)
        #expect(image.size == PixelSize(width: 100, height: 100))
        #expect(Fixtures.pixel(image, 0, 0).last == 0)
        #expect(Fixtures.pixel(image, 99, 99).last == 0)
        #expect(Fixtures.pixel(image, 50, 50) == [230, 120, 30, 255])
        // Radius 10 pt at scale 2 is 20 px: (5, 5) is outside the curve, (20, 20) inside it.
        #expect(Fixtures.pixel(image, 5, 5).last == 0)
        #expect(Fixtures.pixel(image, 20, 20).last == 255)
    }

    @Test func roundCornersOnJPEGAreWhite() throws {
        let spec = VariantSpec(width: 100, height: 100, format: .jpeg, processors: [.roundCorners(radius: 30)])
        let image = try Check.decoded(Check.renderOne(Self.flat, spec))
        // JPEG's 4:2:0 chroma bleeds a little orange into the white corner.
        #expect(Check.close(Fixtures.pixel(image, 0, 0), [255, 255, 255], tolerance: 16))
    }

    @Test func blurSmoothsDetail() throws {
        let sharp = try Check.decoded(Check.renderOne(Self.stripes, VariantSpec(width: 100, height: nil, format: .png)))
        let blurred = try Check.decoded(Check.renderOne(Self.stripes, VariantSpec(width: 100, height: nil, format: .png,
                                                                                   processors: [.blur(sigma: 2)])))
        let sharpStep = abs(Fixtures.pixel(sharp, 50, 50)[0] - Fixtures.pixel(sharp, 51, 50)[0])
        let blurredStep = abs(Fixtures.pixel(blurred, 50, 50)[0] - Fixtures.pixel(blurred, 51, 50)[0])
        #expect(sharpStep == 255)
        #expect(blurredStep < 20)
    }

    @Test func grayscaleGivesEqualChannelsInAnSRGBImage() throws {
        let image = try Check.decoded(Check.renderOne(Self.flat, VariantSpec(width: 20, height: nil, format: .png,
                                                                              processors: [.grayscale])))
        let pixel = Fixtures.pixel(image, 10, 10)
        #expect(pixel.count == 3)
        #expect(pixel[0] == pixel[1] && pixel[1] == pixel[2])
    }

    @Test func processorsApplyInOrder() throws {
        let red = RGBAColor(red: 255, green: 0, blue: 0)
        // Round then flatten: the corners become red and the output is opaque.
        let flattened = try Check.renderOne(Self.flat, VariantSpec(width: 100, height: nil, format: .png,
                                                                   processors: [.roundCorners(radius: 20), .flatten(background: red)]))
        #expect(!flattened.hasAlpha)
        #expect(Check.close(Fixtures.pixel(try Check.decoded(flattened), 0, 0), [255, 0, 0], tolerance: 1))
        // Flatten then round: the corners are transparent again.
        let rounded = try Check.renderOne(Self.flat, VariantSpec(width: 100, height: nil, format: .png,
                                                                 processors: [.flatten(background: red), .roundCorners(radius: 20)]))
        #expect(rounded.hasAlpha)
    }

    @Test func invalidLengthsAreRejected() throws {
        for processor in [Processor.roundCorners(radius: 0), .blur(sigma: -1), .blur(sigma: .nan)] {
            #expect(throws: ImagingError.self) {
                _ = try Check.renderOne(Self.flat, VariantSpec(width: 10, height: nil, format: .png, processors: [processor]))
            }
        }
    }
}
