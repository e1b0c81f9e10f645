/// One semaphore per key, created on first use; used to bound requests per host.
///
/// Semaphores are never removed: a build talks to a bounded set of hosts (those in its
/// manifest), so the map stays small.
final class KeyedSemaphores: Sendable {
    private let limit: Int
    private let semaphores = Locked<[String: AsyncSemaphore]>([:])

    init(limit: Int) {
        self.limit = limit
    }

    /// The semaphore for `key`.
    func semaphore(for key: String) -> AsyncSemaphore {
        semaphores.withLock { map in
            if let existing = map[key] { return existing }
            let created = AsyncSemaphore(limit: limit)
            map[key] = created
            return created
        }
    }
}
