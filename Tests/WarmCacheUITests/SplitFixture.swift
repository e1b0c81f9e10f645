// The rendering tests' fixture bundle and pixel helpers: macOS only, as the tests that use them.
#if os(macOS) && canImport(CoreGraphics)
import CoreGraphics
import Foundation
import Testing
import WarmCacheUI

/// Fixtures/Split.warmcache: one 64x32 PNG, red on the left half and blue on the right.
struct SplitFixture {
    /// The folder beside this file (found from the source path: the tests run from the checkout).
    static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("Fixtures", isDirectory: true)
    /// The image's key in the manifest.
    static let url = URL(string: "https://fixtures.warmcache.invalid/split.png")!
    /// What a 64x32-point view at scale 1 asks for.
    static let request = ImageRequest(url: url, size: PointSize(width: 64, height: 32), scale: 1)

    let bundle: CacheBundle

    init() throws {
        bundle = try CacheBundle(contentsOf: Self.directory.appendingPathComponent("Split.warmcache"))
    }

    /// A loader on the fixture that never uses the network.
    func loader() -> ImageLoader {
        ImageLoader(bundle: bundle, decoder: ImageIODecoder(), configuration: .init(usesNetwork: false))
    }

    /// The baked placeholder's colour: the image's average.
    func averageColor() throws -> RGBAColor {
        try #require(try bundle.placeholder(for: Self.url)?.averageColor)
    }
}

/// Reading pixels back from rendered images.
enum Pixels {
    static let red = RGBAColor(red: 255, green: 0, blue: 0)
    static let blue = RGBAColor(red: 0, green: 0, blue: 255)
    static let green = RGBAColor(red: 0, green: 255, blue: 0)

    /// The sRGB colour of the pixel at (`x`, `y`), counted from the top left.
    static func color(in image: CGImage, x: Int, y: Int) -> RGBAColor {
        var pixel = [UInt8](repeating: 0, count: 4)
        pixel.withUnsafeMutableBytes { buffer in
            guard let space = CGColorSpace(name: CGColorSpace.sRGB),
                  let context = CGContext(data: buffer.baseAddress, width: 1, height: 1, bitsPerComponent: 8,
                                          bytesPerRow: 4, space: space,
                                          bitmapInfo: CGImageAlphaInfo.premultipliedLast.rawValue) else { return }
            // Core Graphics counts rows from the bottom: move the wanted pixel onto the only one.
            context.draw(image, in: CGRect(x: -x, y: y - image.height + 1, width: image.width, height: image.height))
        }
        return RGBAColor(red: pixel[0], green: pixel[1], blue: pixel[2], alpha: pixel[3])
    }
}

extension RGBAColor {
    /// Whether each channel is within `tolerance` of `other`'s (colour conversions round).
    func isClose(to other: RGBAColor, tolerance: Int = 12) -> Bool {
        [(red, other.red), (green, other.green), (blue, other.blue), (alpha, other.alpha)]
            .allSatisfy { abs(Int($0) - Int($1)) <= tolerance }
    }
}
#endif
