import Foundation
import WarmCache

/// What a view asks the loader for: an image URL shown at a size, on a screen of a scale.
///
/// ```swift
/// let request = ImageRequest(url: product.imageURL, size: PointSize(width: 120, height: 120), scale: 3)
/// let response = try await loader.image(for: request)
/// ```
///
/// Two requests are the same when all three values are: a cell reloaded with an equal request
/// keeps what it shows (``ImageSlot/load(_:)``).
public struct ImageRequest: Hashable, Sendable {
    /// The image's URL, as the manifest lists it (or any URL, for the network fallback).
    public var url: URL
    /// The view's size in points; a side of 0 leaves it unconstrained.
    public var size: PointSize
    /// The screen's scale (pixels per point).
    public var scale: Double

    /// A request for `url` drawn at `size` points on a screen of `scale`.
    public init(url: URL, size: PointSize, scale: Double) {
        self.url = url
        self.size = size
        self.scale = scale
    }

    /// The longest side, in pixels, the view shows: `max(width, height) × scale`, rounded up;
    /// `0` when both sides are unconstrained (decode at full size).
    ///
    /// A 120 × 80 pt view at scale 3 gives 360. It names the decode in the loader's cache; the
    /// decode itself is as large as covering the view's box needs, given the image's shape.
    public var maxPixelSize: Int {
        let longest = max(size.width, size.height) * scale
        guard longest.isFinite, longest > 0 else { return 0 }
        return Int(min(longest.rounded(.up), Double(Int32.max)))
    }
}
