import Foundation

/// Loads blobs into a reader's memory tier ahead of display, off the caller's thread.
///
/// A blob is read once however many prefetches ask for it at the same time: the prefetcher
/// keeps the blobs being loaded (per memory cache), and a request for one of them counts as
/// `coalesced` instead of reading the file again. One for the process, shared by every reader.
package final class BlobPrefetcher: @unchecked Sendable {
    package static let shared = BlobPrefetcher()

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
                guard claim(image.memoryKey) else {
                    summary.coalesced += 1
                    continue
                }
                defer { release(image.memoryKey) }
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

    /// Marks a blob as being loaded; `false` if it already was.
    private func claim(_ key: String) -> Bool {
        lock.withLock { loading.insert(key).inserted }
    }

    private func release(_ key: String) {
        _ = lock.withLock { loading.remove(key) }
    }
}
