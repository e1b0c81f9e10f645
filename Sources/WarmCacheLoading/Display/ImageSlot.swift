import Foundation
import WarmCache

/// What one view shows, request after request: the state machine under WarmCacheUI's
/// `WarmImage` and image-view extensions, usable for any view.
///
/// ```swift
/// final class ProductCell: UICollectionViewCell {
///     private lazy var slot: ImageSlot = {
///         let slot = ImageSlot(loader: AppImages.loader)
///         slot.onDisplay = { [weak self] display in self?.show(display) }
///         return slot
///     }()
///
///     func configure(with product: Product) {
///         slot.load(ImageRequest(url: product.imageURL, size: PointSize(width: 120, height: 120), scale: 3))
///     }
/// }
/// ```
///
/// ``load(_:)`` calls ``onDisplay`` at once with the first frame: the image, if it is in memory
/// (`arrivedLater` `false`: no fade), else the bundle's placeholder, else ``ImageDisplay/empty``.
/// Unless the image was in memory, it calls it once more with the result. A cell reused for
/// another request cancels the previous one, whose result is then never shown; the same request
/// again changes nothing.
@MainActor
public final class ImageSlot {
    /// The loader the slot asks.
    public let loader: ImageLoader
    /// Called with every new display, on the main actor: the first frame during ``load(_:)``,
    /// the result later.
    public var onDisplay: ((ImageDisplay) -> Void)?
    /// What the view shows now.
    public private(set) var display: ImageDisplay = .empty
    /// The request shown now, `nil` before the first and after ``cancel()``.
    public private(set) var request: ImageRequest?
    /// The load in flight; cancelled when replaced, cancelled, or when the slot goes away.
    private var load: PendingLoad?
    /// Counts the loads started: a result is shown only if its load is still the latest.
    private var generation: UInt64 = 0

    /// A slot loading from `loader`.
    public init(loader: ImageLoader) {
        self.loader = loader
    }

    /// Shows `request`: the first frame now, the result when it comes. `nil` clears the slot to
    /// ``ImageDisplay/empty``. The same request as now does nothing.
    public func load(_ request: ImageRequest?) {
        guard request != self.request else { return }
        load = nil
        generation &+= 1
        self.request = request
        guard let request else { return show(.empty) }
        if let image = loader.cachedImage(for: request) {
            return show(.image(image, origin: .memory, arrivedLater: false))
        }
        let placeholder = loader.placeholder(for: request)
        show(placeholder.map(ImageDisplay.placeholder) ?? .empty)
        let generation = self.generation
        let pending = PendingLoad()
        load = pending
        pending.task = Task { [weak self, loader] in
            let display: ImageDisplay
            do {
                let response = try await loader.image(for: request)
                display = .image(response.image, origin: response.origin, arrivedLater: true)
            } catch let error as ImageLoadingError {
                display = .failure(error, placeholder: placeholder)
            } catch {
                return  // cancelled: a newer request, or none, owns the slot
            }
            guard let self, self.generation == generation, self.load != nil, !Task.isCancelled else { return }
            self.load = nil
            self.show(display)
        }
    }

    /// Stops the load in flight, whose result will not be shown, and forgets the request (a
    /// later ``load(_:)`` of it loads again). What is shown stays.
    public func cancel() {
        load = nil
        generation &+= 1
        request = nil
    }

    private func show(_ display: ImageDisplay) {
        self.display = display
        onDisplay?(display)
    }
}

/// A load's task, cancelled when the slot lets go of it (replaced, cancelled, or the slot freed).
private final class PendingLoad {
    var task: Task<Void, Never>?
    deinit { task?.cancel() }
}
