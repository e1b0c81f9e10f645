import Foundation
import WarmCache

/// Loads the images of rows about to appear into the loader's decoded cache, and stops when they
/// no longer are about to: what `UITableViewDataSourcePrefetching`, its collection-view twin and a
/// SwiftUI list's `onAppear` need.
///
/// ```swift
/// final class FeedDataSource: NSObject, UITableViewDataSourcePrefetching {
///     let prefetcher = ImagePrefetcher(loader: loader, size: PointSize(width: 80, height: 80), scale: 3)
///
///     func tableView(_ tableView: UITableView, prefetchRowsAt indexPaths: [IndexPath]) {
///         prefetcher.startPrefetching(with: indexPaths.map { items[$0.row].imageURL })
///     }
///     func tableView(_ tableView: UITableView, cancelPrefetchingForRowsAt indexPaths: [IndexPath]) {
///         prefetcher.stopPrefetching(with: indexPaths.map { items[$0.row].imageURL })
///     }
/// }
/// ```
///
/// A URL already loading is not started twice. Stopping one cancels its load unless a view waits
/// for the same image (the loader shares the work and stops it only when nobody waits). Images
/// load at a low priority; a cell that shows one before it is done joins the same load.
public final class ImagePrefetcher: Sendable {
    /// The loader the images go into.
    public let loader: ImageLoader
    /// The size, in points, of the views that will show them.
    public let size: PointSize
    /// The screen's scale.
    public let scale: Double
    private let loads = LoadTable()

    /// A prefetcher for views of `size` points on a screen of `scale`.
    public init(loader: ImageLoader, size: PointSize, scale: Double) {
        self.loader = loader
        self.size = size
        self.scale = scale
    }

    /// Starts loading the images at `urls` that are neither loading nor in memory yet.
    public func startPrefetching(with urls: [URL]) {
        for url in urls {
            let request = ImageRequest(url: url, size: size, scale: scale)
            guard loader.cachedImage(for: request) == nil else { continue }
            loads.start(url) { [loader] in _ = try? await loader.image(for: request) }
        }
    }

    /// Stops loading the images at `urls` (a no-op for those not loading).
    public func stopPrefetching(with urls: [URL]) {
        for url in urls { loads.stop(url) }
    }

    /// Stops every load this prefetcher started, e.g. when the list goes away.
    public func stopPrefetching() {
        loads.stopAll()
    }

    /// How many prefetches are loading now.
    public var loadingCount: Int { loads.count }
}

/// The prefetcher's loads in flight by URL; each forgets itself when done.
private final class LoadTable: @unchecked Sendable {
    private let lock = NSLock()
    private var tasks: [URL: (id: UInt64, task: Task<Void, Never>)] = [:]
    private var nextID: UInt64 = 0

    var count: Int { lock.withLock { tasks.count } }

    /// Runs `load` for `url` at a low priority unless one runs already. (The task cannot finish
    /// before it is recorded: its last step waits for the lock held here.)
    func start(_ url: URL, _ load: @escaping @Sendable () async -> Void) {
        lock.withLock {
            guard tasks[url] == nil else { return }
            nextID &+= 1
            let id = nextID
            tasks[url] = (id, Task(priority: .utility) { [weak self] in
                await load()
                self?.finished(url, id: id)
            })
        }
    }

    func stop(_ url: URL) {
        lock.withLock { tasks.removeValue(forKey: url) }?.task.cancel()
    }

    func stopAll() {
        let all = lock.withLock {
            defer { tasks.removeAll() }
            return Array(tasks.values)
        }
        for entry in all { entry.task.cancel() }
    }

    private func finished(_ url: URL, id: UInt64) {
        lock.withLock {
            if tasks[url]?.id == id { tasks[url] = nil }
        }
    }
}
