import CVipsShim
import Foundation
import Testing
import WarmCache
@testable import WarmCacheImaging

/// Animated sources give stills of their first frame.
@Suite struct AnimationTests {
    static func animation(as format: ImageFormat) throws -> Data {
        let colours: [[UInt8]] = [[220, 20, 20], [20, 220, 20], [20, 20, 220]]
        let frames = colours.map { colour in Fixtures.image(width: 40, height: 30, bands: 3) { _, _ in colour } }
        var pointers: [OpaquePointer?] = frames.map(\.pointer)
        let strip = try VipsImage.make("join") { out in
            pointers.withUnsafeMutableBufferPointer { wc_join_vertical($0.baseAddress, 3, out) }
        }
        return try Fixtures.encodeKeepingMetadata(Fixtures.setting("page-height", to: 30, on: strip), as: format)
    }

    @Test(arguments: [ImageFormat.gif, .webp])
    func firstFrameOnly(format: ImageFormat) throws {
        let source = try Fixtures.engine.open(Self.animation(as: format), name: "animated.\(format.rawValue)")
        #expect(source.info.isAnimated)
        #expect(source.info.pageCount == 3)
        #expect(source.info.pixelSize == PixelSize(width: 40, height: 30))
        for output in [ImageFormat.png, .gif, .webp] {
            let variant = try source.render([VariantSpec(width: 20, height: nil, format: output)])[0]
            let image = try Check.decoded(variant)
            #expect(image.size == PixelSize(width: 20, height: 15))
            #expect(image.pageCount == 1)
            #expect(Check.close(Fixtures.pixel(image, 10, 7), [220, 20, 20], tolerance: 40))
        }
    }
}
