// Apple platforms only: verified by reading Apple's Objective-C runtime and Core Animation reference
// and by the GitHub workflow's Apple builds, not by this repository's Linux CI (which does not
// compile this file).
#if canImport(ObjectiveC) && canImport(QuartzCore) && (os(iOS) || os(tvOS) || os(visionOS) || os(macOS))
import Foundation
import ObjectiveC
import QuartzCore
import WarmCacheLoading

@MainActor private var loadingKey: UInt8 = 0

/// What `UIImageView.setWarmImage(url:)` and `NSImageView.setWarmImage(url:)` share: the
/// ``ImageSlot`` an image view holds, as an associated object of the view, and the rules for what
/// reaches it.
///
/// The slot cancels the previous request whenever the view is given another, and never delivers
/// an old request's result: a reused cell shows its own row's placeholder at once, never the image
/// of the row it showed before.
@MainActor
final class ImageViewLoading {
    /// What the view is given: the display, the scale its image was decoded for, and whether to
    /// fade it in (an image or failure that came after the first frame).
    typealias Show = (_ display: ImageDisplay, _ imageScale: Double, _ fades: Bool) -> Void

    let loader: ImageLoader
    private let slot: ImageSlot
    /// The request the slot loads: every display it reports belongs to it.
    private var request: ImageRequest?
    /// Whether the view shows a loaded image, and for which URL.
    private var shownImageURL: URL?
    private var show: Show?
    private var isStarting = false

    private init(loader: ImageLoader) {
        self.loader = loader
        slot = ImageSlot(loader: loader)
        slot.onDisplay = { [weak self] display in self?.deliver(display) }
    }

    /// The view's loading state for `loader`, made (and attached to the view) on first use. A view
    /// given another loader drops the old state, cancelling its request.
    static func attached(to view: NSObject, loader: ImageLoader) -> ImageViewLoading {
        let current = existing(on: view)
        if let current, current.loader === loader { return current }
        current?.cancel()
        let made = ImageViewLoading(loader: loader)
        objc_setAssociatedObject(view, &loadingKey, made, .OBJC_ASSOCIATION_RETAIN_NONATOMIC)
        return made
    }

    /// The view's loading state, if it ever loaded.
    static func existing(on view: NSObject) -> ImageViewLoading? {
        objc_getAssociatedObject(view, &loadingKey) as? ImageViewLoading
    }

    /// Loads `request`, calling `show` at once with the first frame and later with the result.
    /// The same request as now does nothing. A new size for the URL already shown keeps its image
    /// on screen until the new one arrives, rather than going back to the placeholder.
    func load(_ request: ImageRequest?, show: @escaping Show) {
        self.show = show
        self.request = request
        isStarting = true
        slot.load(request)
        isStarting = false
    }

    /// Cancels the request; the view keeps what it shows.
    func cancel() {
        request = nil
        show = nil
        slot.load(nil)
    }

    private func deliver(_ display: ImageDisplay) {
        guard let show else { return }
        // A new size for the URL on screen: its image stays until the new one replaces it.
        if !display.showsImage, let url = request?.url, url == shownImageURL { return }
        shownImageURL = display.showsImage ? request?.url : nil
        show(display, request?.scale ?? 1, !isStarting && display.animatesIn)
    }

    /// A quarter-second cross-fade of the layer's next change of contents.
    static func fade(_ layer: CALayer?) {
        let transition = CATransition()
        transition.type = .fade
        transition.duration = 0.25
        layer?.add(transition, forKey: "WarmCache.fade")
    }
}
#endif
