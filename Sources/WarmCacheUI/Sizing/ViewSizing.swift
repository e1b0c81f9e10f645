// Platform-neutral (compiled and tested on Linux too): the one place where a view's size in points
// becomes the loader's request, for WarmImage and the image-view extensions alike.
import Foundation
import WarmCache
import WarmCacheLoading

/// Turns what layout gives (a size in points, a screen scale) into an ``ImageRequest``.
package enum ViewSizing {
    /// The request for `url` shown in a view of `width` x `height` points on a screen of `scale`.
    ///
    /// Sides are rounded up to whole points, so a layout that moves by a fraction of a point
    /// (a grid dividing its width into columns, a resize animation's last frames) asks for the
    /// same request, which the loader answers from memory. A side that is not positive (or not a
    /// number) is `0`: unconstrained. A scale that is not positive is taken as 1.
    ///
    /// - Returns: `nil` when there is no URL: nothing to load.
    package static func request(url: URL?, width: Double, height: Double, scale: Double) -> ImageRequest? {
        guard let url else { return nil }
        return ImageRequest(url: url, size: PointSize(width: wholePoints(width), height: wholePoints(height)),
                            scale: scale > 0 && scale.isFinite ? scale : 1)
    }

    /// Whether a layout size shows anything at all: both sides positive. SwiftUI lays a view out
    /// at zero size before it has room; loading then would decode at full size for nothing.
    package static func isVisible(width: Double, height: Double) -> Bool {
        width > 0 && height > 0 && width.isFinite && height.isFinite
    }

    private static func wholePoints(_ side: Double) -> Double {
        side > 0 && side.isFinite ? side.rounded(.up) : 0
    }
}
