import Foundation
import WarmCache

/// What the platform gives the loader: a decoder of encoded images into bitmaps.
///
/// Decode at most `maxPixelSize` pixels on the longest side (`0`: full size), with the EXIF
/// orientation applied, and fully now rather than lazily at first draw. The loader calls it off
/// the main thread, on its own decoding threads, a few at a time. Throw any error when the bytes
/// are not an image: the loader reports it in plain words with the URL.
///
/// On Apple platforms WarmCacheUI gives one built on ImageIO's thumbnail API. Elsewhere (a test,
/// a server rendering previews) anything that makes a ``DecodedImage`` will do:
///
/// ```swift
/// struct SizeOnlyDecoder: ImageDecoding {
///     func decode(_ image: EncodedImage, maxPixelSize: Int) throws -> DecodedImage {
///         DecodedImage(image: NSNull(), pixelSize: PixelSize(width: maxPixelSize, height: maxPixelSize))
///     }
/// }
/// ```
public protocol ImageDecoding: Sendable {
    /// The bitmap of `image`, its longest side at most `maxPixelSize` pixels (`0`: full size).
    func decode(_ image: EncodedImage, maxPixelSize: Int) throws -> DecodedImage

    /// The size `image` decodes to at full size, upright (EXIF orientation applied), read from its
    /// header without decoding; `nil` when that is not known. The loader asks it of a downloaded
    /// image, whose size no bundle recorded, to decode it large enough to cover the view on both
    /// sides. The default says `nil`: the decode's longest side is then the view's.
    func pixelSize(of image: EncodedImage) -> PixelSize?
}

extension ImageDecoding {
    /// Not known: see ``ImageDecoding/pixelSize(of:)``.
    public func pixelSize(of image: EncodedImage) -> PixelSize? { nil }
}

/// A decoded bitmap, ready to draw: `image` is the platform's object (a `CGImage` on Apple
/// platforms), `pixelSize` its size.
///
/// ```swift
/// let cgImage = response.image.image as! CGImage
/// ```
public struct DecodedImage: @unchecked Sendable {
    /// The platform's bitmap (a `CGImage` on Apple platforms). Immutable once decoded, which is
    /// what makes sharing it between threads safe.
    public let image: AnyObject
    /// Its size in pixels.
    public let pixelSize: PixelSize

    /// A decoded bitmap of `pixelSize` pixels.
    public init(image: AnyObject, pixelSize: PixelSize) {
        self.image = image
        self.pixelSize = pixelSize
    }

    /// The memory it holds: width × height × 4 bytes (clamped to `Int.max`, which on a 32-bit
    /// `Int` a huge image could pass).
    public var byteCost: Int {
        let bytes = Int64(max(0, pixelSize.width)).multipliedReportingOverflow(by: Int64(max(0, pixelSize.height)) * 4)
        return bytes.overflow ? Int.max : Int(clamping: bytes.partialValue)
    }

    /// The longest side in pixels.
    var longestSide: Int { max(pixelSize.width, pixelSize.height) }
}
