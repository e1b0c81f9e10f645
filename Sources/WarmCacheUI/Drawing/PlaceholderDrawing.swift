// Apple platforms only: verified by reading Apple's Core Graphics reference and by the GitHub
// workflow's Apple builds, not by this repository's Linux CI (which does not compile this file).
#if canImport(CoreGraphics)
import CoreGraphics
import WarmCache

/// Baked placeholders as small `CGImage`s, which the views scale up to their size.
package enum PlaceholderDrawing {
    /// The longest side, in pixels, a placeholder is decoded at. A ThumbHash or BlurHash holds
    /// no more detail than this, and decoding costs about a microsecond a pixel, on the main
    /// thread for a view's first frame: 32 × 32 is about a millisecond.
    package static let longestSide = 32

    /// How many drawn placeholders are kept (4 KB each at 32 × 32): a few screens of cells, so
    /// that scrolling back, or a view drawn again, does not decode them again.
    package static let keptCount = 128

    /// The placeholder drawn from the best thing it holds (ThumbHash, else BlurHash, else the
    /// average colour), in the image's aspect ratio when the ThumbHash gives it; `nil` when it
    /// holds nothing. The last ``keptCount`` drawn are kept.
    @MainActor
    package static func cgImage(for placeholder: ImagePlaceholder) -> CGImage? {
        if let kept = drawn[placeholder] { return kept }
        let (width, height) = pixelSize(aspectRatio: placeholder.aspectRatio)
        guard let image = placeholder.pixels(width: width, height: height)?.cgImage() else { return nil }
        if drawnOrder.count >= keptCount {
            drawn[drawnOrder.removeFirst()] = nil
        }
        drawn[placeholder] = image
        drawnOrder.append(placeholder)
        return image
    }

    @MainActor private static var drawn: [ImagePlaceholder: CGImage] = [:]
    /// The keys of `drawn`, oldest first.
    @MainActor private static var drawnOrder: [ImagePlaceholder] = []

    /// What a view shows while nothing is known: a faint grey, as `AsyncImage` shows.
    @MainActor package static let empty: CGImage? = PlaceholderPixels(
        width: 1, height: 1, color: RGBAColor(red: 128, green: 128, blue: 128, alpha: 40)).cgImage()

    private static func pixelSize(aspectRatio: Double?) -> (width: Int, height: Int) {
        guard let ratio = aspectRatio, ratio > 0, ratio.isFinite else { return (longestSide, longestSide) }
        let side = Double(longestSide)
        return ratio >= 1
            ? (longestSide, max(1, Int((side / ratio).rounded())))
            : (max(1, Int((side * ratio).rounded())), longestSide)
    }
}
#endif
