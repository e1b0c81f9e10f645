#if canImport(CoreGraphics)
import CoreGraphics
import Foundation

// Apple platforms only; this project's Linux CI does not compile this file.
extension PlaceholderPixels {
    /// The pixels as a `CGImage` (sRGB, 8 bits per channel, straight alpha), for
    /// `UIImage(cgImage:)` / `NSImage(cgImage:size:)` or a layer's `contents`.
    public func cgImage() -> CGImage? {
        guard let provider = CGDataProvider(data: Data(rgba) as CFData),
              let space = CGColorSpace(name: CGColorSpace.sRGB) else { return nil }
        return CGImage(width: width, height: height, bitsPerComponent: 8, bitsPerPixel: 32, bytesPerRow: width * 4,
                       space: space, bitmapInfo: CGBitmapInfo(rawValue: CGImageAlphaInfo.last.rawValue),
                       provider: provider, decode: nil, shouldInterpolate: true, intent: .defaultIntent)
    }
}
#endif
