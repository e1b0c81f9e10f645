// Apple platforms only: verified by reading and by the GitHub workflow's Apple builds, not by this
// repository's Linux CI (which does not compile this file).
#if canImport(CoreGraphics)
import WarmCache
import WarmCacheLoading

/// What the SwiftUI view and the image-view extensions ask of a display, in one place.
extension ImageDisplay {
    /// Whether it is the image itself.
    package var showsImage: Bool {
        if case .image = self { return true }
        return false
    }

    /// Whether it came after the first frame (an image that was not in memory, or a failure): a
    /// change the views animate (a fade, or a SwiftUI transaction).
    package var animatesIn: Bool {
        switch self {
        case .image(_, _, let arrivedLater): return arrivedLater
        case .failure: return true
        default: return false
        }
    }

    /// The baked placeholder to draw: while loading, and after a failure when the bundle has one.
    package var bakedPlaceholder: ImagePlaceholder? {
        switch self {
        case .placeholder(let placeholder): return placeholder
        case .failure(_, let placeholder): return placeholder
        default: return nil
        }
    }
}
#endif
