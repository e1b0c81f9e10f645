// macOS only: verified by reading Apple's AppKit reference and by the GitHub workflow's macOS job,
// not by this repository's Linux CI (which does not compile this file).
#if os(macOS) && canImport(AppKit)
import AppKit
import WarmCacheLoading

@MainActor
extension NSImageView {
    /// Shows the image at `url`, decoded for this view's size: the baked placeholder (or the image
    /// itself, when it is in memory) at once, then the image, faded in when the view is
    /// layer-backed.
    ///
    /// ```swift
    /// func tableView(_ tableView: NSTableView, viewFor tableColumn: NSTableColumn?, row: Int) -> NSView? {
    ///     let cell = tableView.makeView(withIdentifier: .photo, owner: self) as? NSTableCellView
    ///     cell?.imageView?.setWarmImage(url: photos[row].url)
    ///     return cell
    /// }
    /// ```
    ///
    /// It behaves as `UIImageView`'s `setWarmImage(url:loader:size:)` does: the previous request is
    /// cancelled on reuse and never shown; the size is the view's `bounds` (or `size`) times the
    /// window's backing scale factor (the main screen's before the view is in a window); the
    /// view's `imageScaling` scales the image and the placeholder.
    ///
    /// - Parameters:
    ///   - url: The image's URL, as the manifest lists it; `nil` clears the view.
    ///   - loader: The loader to use; ``ImageLoader/shared`` by default.
    ///   - size: The view's size in points, when its bounds are not known yet.
    public func setWarmImage(url: URL?, loader: ImageLoader = .shared, size: CGSize? = nil) {
        let points = size ?? bounds.size
        let scale = window?.backingScaleFactor ?? NSScreen.main?.backingScaleFactor ?? 2
        let request = ViewSizing.request(url: url, width: Double(points.width), height: Double(points.height),
                                         scale: Double(scale))
        ImageViewLoading.attached(to: self, loader: loader).load(request) { [weak self] display, imageScale, fades in
            self?.showWarmImage(display, imageScale: CGFloat(imageScale), fades: fades)
        }
    }

    /// Cancels the load `setWarmImage(url:)` started, keeping what the view shows.
    public func cancelWarmImage() {
        ImageViewLoading.existing(on: self)?.cancel()
    }

    private func showWarmImage(_ display: ImageDisplay, imageScale: CGFloat, fades: Bool) {
        let shown: NSImage?
        if case .image(let decoded, _, _) = display, let cgImage = decoded.cgImage {
            let points = NSSize(width: CGFloat(cgImage.width) / imageScale, height: CGFloat(cgImage.height) / imageScale)
            shown = NSImage(cgImage: cgImage, size: points)
        } else {
            // The placeholder is a few pixels drawn to stand for the whole image: sized to the view,
            // since NSImageView's default scaling (proportionally down) would never enlarge it.
            let size = bounds.size
            shown = display.bakedPlaceholder.flatMap { PlaceholderDrawing.cgImage(for: $0) }
                .map { NSImage(cgImage: $0, size: size.width > 0 && size.height > 0 ? size : .zero) }
        }
        if fades { ImageViewLoading.fade(layer) }
        image = shown
    }
}
#endif
