import Foundation

/// A thread-safe least-recently-used cache bounded by a count and by a cost in bytes: the one
/// eviction policy of the package's memory caches (the bundle's ``BlobMemoryCache`` of encoded
/// bytes, the views' cache of decoded images).
///
/// Both limits hold at all times: inserting evicts the least recently used entries until they
/// do; an entry costing more than the byte limit is not kept. On Apple platforms it gives memory
/// back by itself when the system runs short: half its bytes when memory is low, everything when
/// it is critical (the least recently used first).
package final class LRUCache<Key: Hashable & Sendable, Value: Sendable>: @unchecked Sendable {
    /// The most entries kept.
    package let countLimit: Int
    /// The most bytes kept, as `cost` counts them.
    package let byteLimit: Int

    private final class Node {
        let key: Key
        let value: Value
        let cost: Int
        var previous: Node?
        var next: Node?
        init(key: Key, value: Value, cost: Int) {
            self.key = key
            self.value = value
            self.cost = cost
        }
    }

    private let cost: (Value) -> Int
    private let lock = NSLock()
    private var nodes: [Key: Node] = [:]
    private var head: Node?  // most recently used
    private var tail: Node?  // least recently used
    private var totalBytes = 0
    private var peakBytes = 0
    /// The system's memory-pressure events, while the cache lives (Apple platforms).
    private var pressure: LibC.MemoryPressureObserver?

    /// An empty cache with these limits (negative limits count as 0: nothing is kept); `cost`
    /// gives an entry's bytes.
    package init(countLimit: Int, byteLimit: Int, cost: @escaping (Value) -> Int) {
        self.countLimit = max(0, countLimit)
        self.byteLimit = max(0, byteLimit)
        self.cost = cost
        pressure = LibC.MemoryPressureObserver { [weak self] critical in
            self?.relieveMemoryPressure(critical: critical)
        }
    }

    /// The number of entries held now.
    package var count: Int { lock.withLock { nodes.count } }
    /// The bytes held now.
    package var byteCount: Int { lock.withLock { totalBytes } }
    /// The most bytes held at once since the cache was made (or ``resetPeakByteCount()``).
    package var peakByteCount: Int { lock.withLock { peakBytes } }

    /// The value for `key`, marking it most recently used.
    package func value(forKey key: Key) -> Value? {
        lock.withLock {
            guard let node = nodes[key] else { return nil }
            moveToFront(node)
            return node.value
        }
    }

    /// The value for `key` without marking it used.
    package func peek(_ key: Key) -> Value? {
        lock.withLock { nodes[key]?.value }
    }

    /// Whether `key` is held, without marking it used.
    package func contains(_ key: Key) -> Bool {
        lock.withLock { nodes[key] != nil }
    }

    /// Keeps `value` under `key` as the most recently used entry, evicting the least recently used
    /// ones until both limits hold.
    package func insert(_ value: Value, forKey key: Key) {
        let bytes = cost(value)
        lock.withLock {
            if let existing = nodes[key] { remove(existing) }
            guard bytes <= byteLimit, countLimit > 0 else { return }
            let node = Node(key: key, value: value, cost: bytes)
            nodes[key] = node
            totalBytes += bytes
            moveToFront(node)
            while nodes.count > countLimit || totalBytes > byteLimit, let last = tail {
                remove(last)
            }
            peakBytes = max(peakBytes, totalBytes)
        }
    }

    /// What the cache does when the system runs short of memory: keeps at most half its byte
    /// limit when memory is low, nothing when it is critical.
    package func relieveMemoryPressure(critical: Bool) {
        guard !critical else { return removeAll() }
        lock.withLock {
            while totalBytes > byteLimit / 2, let last = tail {
                remove(last)
            }
        }
    }

    /// Empties the cache.
    package func removeAll() {
        lock.withLock {
            nodes.removeAll()
            head = nil
            tail = nil
            totalBytes = 0
        }
    }

    /// Starts a new high-water mark from the bytes held now.
    package func resetPeakByteCount() {
        lock.withLock { peakBytes = totalBytes }
    }

    private func moveToFront(_ node: Node) {
        guard head !== node else { return }
        unlink(node)
        node.next = head
        head?.previous = node
        head = node
        if tail == nil { tail = node }
    }

    private func remove(_ node: Node) {
        unlink(node)
        nodes[node.key] = nil
        totalBytes -= node.cost
    }

    private func unlink(_ node: Node) {
        node.previous?.next = node.next
        node.next?.previous = node.previous
        if head === node { head = node.next }
        if tail === node { tail = node.previous }
        node.previous = nil
        node.next = nil
    }
}
