import Foundation

/// Loads blobs into a reader's memory tier ahead of display, off the caller's thread.
///
/// A blob is read once however many prefetches ask for it at the same time: the prefetcher
/// keeps the hashes being loaded, and a request for one of them counts as `coalesced`
/// instead of reading the file again. One per reader (``CacheBundle``, ``LayeredCacheBundle``).
package final class BlobPrefetcher: @unchecked Sendable {
    private let lock = NSLock()
    private var loading: Set<String> = []

    package init() {}

    /// Starts a detached task that resolves each source with `resolve` and loads its image.
    /// Cancelling the task stops it before the next request.
    package func prefetch(_ sources: [SourceIdentifier], priority: TaskPriority,
                          resolve: @escaping @Sendable (SourceIdentifier) throws -> CachedImage?)
        -> Task<PrefetchSummary, Never>
    {
        Task.detached(priority: priority) { [self] in
            var summary = PrefetchSummary()
            for source in sources {
                if Task.isCancelled {
                    summary.cancelled = true
                    break
                }
                guard let image = try? resolve(source) else {
                    summary.notFound += 1
                    continue
                }
                if image.isInMemory {
                    summary.alreadyInMemory += 1
                    continue
                }
                guard claim(image.sha256) else {
                    summary.coalesced += 1
                    continue
                }
                defer { release(image.sha256) }
                if image.isInMemory {  // finished by another prefetch between the checks
                    summary.alreadyInMemory += 1
                } else if (try? image.loadIntoMemory()) != nil {
                    summary.loaded += 1
                } else {
                    summary.failed += 1
                }
            }
            return summary
        }
    }

    /// Marks `hash` as being loaded; `false` if it already was.
    private func claim(_ hash: String) -> Bool {
        lock.withLock { loading.insert(hash).inserted }
    }

    private func release(_ hash: String) {
        _ = lock.withLock { loading.remove(hash) }
    }
}
