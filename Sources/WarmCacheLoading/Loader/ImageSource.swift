import Foundation
import WarmCache

/// Where a request's image comes from, once the bundle has been asked: a blob of the bundle, or
/// the URL itself (the network). Resolving it is one bundle lookup, microseconds.
enum ImageSource: Sendable {
    /// The bundle's best variant for the request.
    case blob(CachedImage)
    /// Not in the bundle (or no bundle): the URL, for the network.
    case remote(URL)

    /// The source of `request` in `bundle`, with the formats the decoder reads.
    ///
    /// - Throws: ``ImageLoadingError`` when the bundle's index cannot be read.
    static func of(_ request: ImageRequest, in bundle: (any ImageLookup)?, accepting: [ImageFormat]) throws -> ImageSource {
        guard let bundle else { return .remote(request.url) }
        do {
            let variant = try bundle.bestImage(for: request.url, size: request.size, scale: request.scale,
                                               accepting: accepting)
            return variant.map(ImageSource.blob) ?? .remote(request.url)
        } catch {
            throw ImageLoadingError(url: request.url, reason: .bundleUnreadable(PlainReason.of(error)))
        }
    }

    /// The decoded-image cache's key for `request` from this source.
    ///
    /// For a blob whose pixels all fit in the view the decode is at full size (`0`), so views of
    /// several sizes share it. A side of the view left at 0 grows with the blob's shape: a view
    /// 100 px wide of free height shows a 1:3 portrait 300 px tall.
    func key(for request: ImageRequest) -> DecodedImageKey {
        switch self {
        case .remote(let url):
            return DecodedImageKey(bytes: .url(url), maxPixelSize: request.maxPixelSize)
        case .blob(let variant):
            return DecodedImageKey(bytes: .blob(sha256: variant.sha256),
                                   maxPixelSize: Self.decodeSize(for: request, of: variant.pixelSize))
        }
    }

    /// The longest side to decode a `pixels` image at for `request` (0: full size).
    ///
    /// Large enough to cover the view's box on both sides, as Nuke's thumbnails do by default: a
    /// view that fills its frame with an image of another shape (`scaledToFill`,
    /// `scaleAspectFill`) then never enlarges the decode, and one that fits it inside draws a
    /// decode at most as much larger as the two shapes differ. A 3:2 photo in a 100 × 100 px box is
    /// decoded 150 × 100, not 100 × 67.
    static func decodeSize(for request: ImageRequest, of pixels: PixelSize) -> Int {
        let longest = max(pixels.width, pixels.height)
        let box = (width: request.size.width * request.scale, height: request.size.height * request.scale)
        guard longest > 0, pixels.width > 0, pixels.height > 0, box.width.isFinite, box.height.isFinite else { return 0 }
        var needed = max(box.width / Double(pixels.width), box.height / Double(pixels.height)) * Double(longest)
        if box.width > 0, box.height <= 0 {
            needed = box.width * Double(longest) / Double(pixels.width)
        } else if box.height > 0, box.width <= 0 {
            needed = box.height * Double(longest) / Double(pixels.height)
        }
        guard needed > 0, needed.rounded(.up) < Double(longest) else { return 0 }
        return Int(needed.rounded(.up))
    }
}
