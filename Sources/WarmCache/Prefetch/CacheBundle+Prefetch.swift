import Foundation

extension CacheBundle {
    /// Loads the images that `bestImage` would return for these URLs into the memory tier, on a
    /// background task, so that showing them later does no disk read.
    ///
    /// ```swift
    /// // The next screen of a feed:
    /// bundle.prefetch(upcoming.map(\.imageURL), size: PointSize(width: 120, height: 120), scale: 3,
    ///                 accepting: [.avif, .webp, .jpeg])
    /// ```
    ///
    /// Returns at once. Duplicate requests, in this call or in concurrent ones, read each blob
    /// only once. Cancel the returned task to stop (e.g. when the user scrolls away); await its
    /// value for a ``PrefetchSummary``. What fits is bounded by the memory cache's limits
    /// (``Configuration``): prefetch about a screenful, not the whole bundle.
    @discardableResult
    public func prefetch(_ urls: [URL], size: PointSize, scale: Double, accepting: [ImageFormat] = [.jpeg, .png],
                         fit: FitMode.Kind? = nil, processors: [Processor]? = nil, preset: String? = nil,
                         priority: TaskPriority = .utility) -> Task<PrefetchSummary, Never> {
        prefetcher.prefetch(urls.map { SourceIdentifier($0.absoluteString) }, priority: priority) { source in
            try self.bestImage(for: source, size: size, scale: scale, accepting: accepting, fit: fit,
                               processors: processors, preset: preset)
        }
    }
}
