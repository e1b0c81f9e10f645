// Apple platforms only: verified by reading Apple's ImageIO reference and by the GitHub workflow's
// Apple builds, not by this repository's Linux CI (which does not compile this file).
#if canImport(ImageIO)
import CoreGraphics
import Foundation
import ImageIO
import WarmCache
import WarmCacheLoading

/// Decodes images with ImageIO, the system's decoders, straight to the size a view shows.
///
/// Every format ``ImageFormat/decodedHere`` lists for the device decodes here (JPEG, PNG, GIF,
/// HEIC, WebP, AVIF, JPEG XL, as the OS version allows). It follows WWDC 2018's "Image and
/// Graphics Best Practices": the encoded file is not cached by ImageIO
/// (`kCGImageSourceShouldCache` false), and the bitmap is made by the thumbnail path, which decodes
/// at most `maxPixelSize` pixels on the longest side, applies the EXIF orientation and decodes now
/// (`kCGImageSourceShouldCacheImmediately`), so no decode happens later on the main thread when
/// the image is first drawn. A decoded image costs width × height × 4 bytes, whatever its file size.
///
/// ```swift
/// let loader = ImageLoader(bundle: try CacheBundle(contentsOf: bundleURL), decoder: ImageIODecoder())
/// ```
///
/// ``ImageLoader/shared`` uses it; give another decoder to an ``ImageLoader`` only to decode
/// formats the system does not. An animated GIF decodes to its first frame.
public struct ImageIODecoder: ImageDecoding {
    /// A decoder; it holds no state, so one instance can serve every loader.
    public init() {}

    /// The image decoded to at most `maxPixelSize` pixels on its longest side (its full size when
    /// `maxPixelSize` is 0), upright, as a `CGImage`.
    ///
    /// - Throws: ``Failure`` when the bytes are not an image ImageIO reads.
    public func decode(_ image: EncodedImage, maxPixelSize: Int) throws -> DecodedImage {
        guard let source = Self.source(for: image.bytes), CGImageSourceGetCount(source) > 0 else {
            throw Failure(bytes: image.bytes, format: image.format)
        }
        var options: [CFString: Any] = [
            kCGImageSourceCreateThumbnailFromImageAlways: true,
            kCGImageSourceShouldCacheImmediately: true,
            kCGImageSourceCreateThumbnailWithTransform: true,
        ]
        if let longestSide = maxPixelSize > 0 ? maxPixelSize : Self.longestSide(of: source) {
            options[kCGImageSourceThumbnailMaxPixelSize] = longestSide
        }
        guard let decoded = CGImageSourceCreateThumbnailAtIndex(source, 0, options as CFDictionary) else {
            throw Failure(bytes: image.bytes, format: image.format)
        }
        return DecodedImage(image: decoded, pixelSize: PixelSize(width: decoded.width, height: decoded.height))
    }

    /// The first image's size upright, from its properties (no pixel is decoded): width and height
    /// swapped for the EXIF orientations that turn it a quarter (5 to 8). `nil` when they do not say.
    public func pixelSize(of image: EncodedImage) -> PixelSize? {
        guard let source = Self.source(for: image.bytes),
              let properties = CGImageSourceCopyPropertiesAtIndex(source, 0, nil) as? [CFString: Any],
              let width = (properties[kCGImagePropertyPixelWidth] as? NSNumber)?.intValue,
              let height = (properties[kCGImagePropertyPixelHeight] as? NSNumber)?.intValue,
              width > 0, height > 0 else { return nil }
        let orientation = (properties[kCGImagePropertyOrientation] as? NSNumber)?.intValue ?? 1
        return (5...8).contains(orientation) ? PixelSize(width: height, height: width) : PixelSize(width: width, height: height)
    }

    /// An image source that reads the file in place or the downloaded bytes, without caching them.
    private static func source(for bytes: EncodedImage.Bytes) -> CGImageSource? {
        let options = [kCGImageSourceShouldCache: false] as CFDictionary
        switch bytes {
        case .file(let url):
            return CGImageSourceCreateWithURL(url as CFURL, options)
        case .data(let data):
            return CGImageSourceCreateWithData(data as CFData, options)
        }
    }

    /// The first image's larger side in pixels, from its properties: what a full-size decode asks
    /// for. `nil` when the properties do not say (the thumbnail is then as large as the image).
    private static func longestSide(of source: CGImageSource) -> Int? {
        guard let properties = CGImageSourceCopyPropertiesAtIndex(source, 0, nil) as? [CFString: Any],
              let width = (properties[kCGImagePropertyPixelWidth] as? NSNumber)?.intValue,
              let height = (properties[kCGImagePropertyPixelHeight] as? NSNumber)?.intValue,
              width > 0, height > 0 else { return nil }
        return max(width, height)
    }
}

extension ImageIODecoder {
    /// Bytes ImageIO could not decode: a download that is not an image (an HTML error page, a
    /// truncated body), a blob in a format this OS version does not read, or a damaged file.
    public struct Failure: Error, Sendable, CustomStringConvertible {
        /// What was decoded: a file, or downloaded bytes.
        public let bytes: EncodedImage.Bytes
        /// The format the bundle recorded for it; `nil` for downloaded bytes.
        public let format: ImageFormat?

        /// What went wrong and what to do, in plain words.
        public var description: String {
            switch bytes {
            case .file(let url):
                let recorded = format.map { " (recorded as \($0.rawValue.uppercased()))" } ?? ""
                return "the file \(url.path)\(recorded) is not an image this device can decode: it may be damaged, "
                    + "or the bundle was baked for newer systems (check `platforms:` in its manifest)"
            case .data(let data):
                return "the \(data.count) bytes downloaded are not an image this device can decode: "
                    + "check that the URL serves an image (not a web page or an error)"
            }
        }
    }
}
#endif
