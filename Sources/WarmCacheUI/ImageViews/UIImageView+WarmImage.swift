// iOS, iPadOS, tvOS, visionOS and Mac Catalyst only (watchOS has no UIImageView): verified by reading
// Apple's UIKit reference and by the GitHub workflow's Apple builds, not by this repository's Linux CI.
#if canImport(UIKit) && !os(watchOS)
import UIKit
import WarmCacheLoading

@MainActor
extension UIImageView {
    /// Shows the image at `url`, decoded for this view's size: the baked placeholder (or the image
    /// itself, when it is in memory) at once, then the image, faded in.
    ///
    /// ```swift
    /// func tableView(_ tableView: UITableView, cellForRowAt indexPath: IndexPath) -> UITableViewCell {
    ///     let cell = tableView.dequeueReusableCell(withIdentifier: "Photo", for: indexPath) as! PhotoCell
    ///     cell.photoView.setWarmImage(url: photos[indexPath.row].url)
    ///     return cell
    /// }
    /// ```
    ///
    /// Call it again whenever the view is reused: the previous request is cancelled and its image
    /// never appears, so a reused cell never shows another row's image. The same URL and size again
    /// does nothing. `nil` cancels and shows nothing. The view's `contentMode` scales the image and
    /// the placeholder (a small blurred image) as it would any image.
    ///
    /// The size asked for is the view's `bounds` (or `size`), times the trait collection's display
    /// scale. A view that has not been laid out yet has zero bounds: then pass `size` (a cell's
    /// image view of fixed size knows it), or the loader decodes the bundle's largest variant at its
    /// full size. docs/views.md has the details.
    ///
    /// - Parameters:
    ///   - url: The image's URL, as the manifest lists it; `nil` clears the view.
    ///   - loader: The loader to use; ``ImageLoader/shared`` by default.
    ///   - size: The view's size in points, when its bounds are not known yet.
    public func setWarmImage(url: URL?, loader: ImageLoader = .shared, size: CGSize? = nil) {
        let points = size ?? bounds.size
        let scale = warmImageDisplayScale
        let request = ViewSizing.request(url: url, width: Double(points.width), height: Double(points.height),
                                         scale: Double(scale))
        ImageViewLoading.attached(to: self, loader: loader).load(request) { [weak self] display, imageScale, fades in
            self?.showWarmImage(display, imageScale: CGFloat(imageScale), fades: fades)
        }
    }

    /// Cancels the load `setWarmImage(url:)` started, keeping what the view shows; for a view
    /// about to be given an image some other way.
    public func cancelWarmImage() {
        ImageViewLoading.existing(on: self)?.cancel()
    }

    /// Pixels per point of the screen the view is on: its trait collection's, else the current
    /// one's (a view not yet in a window may have none), else 2.
    private var warmImageDisplayScale: CGFloat {
        if traitCollection.displayScale > 0 { return traitCollection.displayScale }
        if UITraitCollection.current.displayScale > 0 { return UITraitCollection.current.displayScale }
        return 2
    }

    private func showWarmImage(_ display: ImageDisplay, imageScale: CGFloat, fades: Bool) {
        let shown: UIImage?
        if case .image(let decoded, _, _) = display {
            shown = decoded.cgImage.map { UIImage(cgImage: $0, scale: imageScale, orientation: .up) }
        } else {
            shown = display.bakedPlaceholder.flatMap { PlaceholderDrawing.cgImage(for: $0) }
                .map { UIImage(cgImage: $0) }
        }
        if fades { ImageViewLoading.fade(layer) }
        image = shown
    }
}
#endif
