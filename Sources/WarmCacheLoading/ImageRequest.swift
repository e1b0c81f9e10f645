import Foundation
import WarmCache

/// What a view asks the loader for: an image URL shown at a size, on a screen of a scale.
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
}
