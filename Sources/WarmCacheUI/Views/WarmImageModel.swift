// Apple platforms only: verified by reading Apple's SwiftUI and Combine reference and by the GitHub
// workflow's Apple builds, not by this repository's Linux CI (which does not compile this file).
#if canImport(SwiftUI) && canImport(Combine)
import Combine
import SwiftUI
import WarmCacheLoading

/// One `WarmImage`'s state: the ``ImageSlot`` that loads for it and what it shows.
@MainActor
final class WarmImageModel: ObservableObject {
    /// What the view shows and the request it belongs to.
    struct Shown {
        var request: ImageRequest?
        var display: ImageDisplay
        /// Pixels per point of the shown image: the scale its request was decoded for.
        var imageScale: Double
    }

    @Published private(set) var shown = Shown(request: nil, display: .empty, imageScale: 1)
    private var slot: ImageSlot?
    private var slotLoader: ImageLoader?
    /// The request the slot loads now: every display it reports belongs to it.
    private var loading: ImageRequest?
    private var transaction = Transaction()
    /// Whether `load` is running: the displays it reports are the first frame, never animated.
    private var isStarting = false

    /// What to draw for `request` now. Once the view's task has started it, what the slot shows;
    /// before (the view's first frame), the decoded image if in memory, else the baked placeholder,
    /// else nothing: the loader's two first-frame answers, microseconds on the main thread. While
    /// the view is resized, the image it shows stays until the new size's image arrives.
    func frame(for request: ImageRequest?, loader: ImageLoader) -> Shown {
        if shown.request == request || keepsShownImage(for: request) { return shown }
        guard let request else { return Shown(request: nil, display: .empty, imageScale: 1) }
        if let image = loader.cachedImage(for: request) {
            return Shown(request: request, display: .image(image, origin: .memory, arrivedLater: false),
                         imageScale: request.scale)
        }
        let display = loader.placeholder(for: request).map(ImageDisplay.placeholder) ?? .empty
        return Shown(request: request, display: display, imageScale: request.scale)
    }

    /// Starts loading `request` with `loader`; the previous request is cancelled. Later displays
    /// change the view within `transaction`.
    func start(_ request: ImageRequest?, loader: ImageLoader, transaction: Transaction) {
        self.transaction = transaction
        let current = slot(for: loader)
        loading = request
        isStarting = true
        current.load(request)
        isStarting = false
    }

    /// Cancels `request` if it is still the one loading (a view's task ends after the next began
    /// when its URL or size changed).
    func stop(_ request: ImageRequest?) {
        guard let slot, loading == request, request != nil else { return }
        loading = nil
        slot.load(nil)
    }

    private func slot(for loader: ImageLoader) -> ImageSlot {
        if let slot, slotLoader === loader { return slot }
        slot?.cancel()
        let made = ImageSlot(loader: loader)
        made.onDisplay = { [weak self] display in self?.receive(display) }
        slot = made
        slotLoader = loader
        return made
    }

    private func receive(_ display: ImageDisplay) {
        // A view whose task ended keeps what it shows: it is leaving, or a new task follows.
        guard let request = loading else { return }
        if !display.showsImage, keepsShownImage(for: request) {
            shown.request = request
            return
        }
        let next = Shown(request: request, display: display, imageScale: request.scale)
        if !isStarting, display.animatesIn, !shown.display.showsImage {
            withTransaction(transaction) { shown = next }
        } else {
            shown = next
        }
    }

    /// Whether the shown image stays for `request`: same URL (only the size changed) and an image
    /// already on screen, better than any placeholder (or a failure) until the new size's image
    /// arrives.
    private func keepsShownImage(for request: ImageRequest?) -> Bool {
        guard let request, shown.display.showsImage else { return false }
        return shown.request?.url == request.url
    }
}
#endif
