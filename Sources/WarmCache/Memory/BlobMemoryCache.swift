import Foundation

/// A bounded, thread-safe least-recently-used cache of blob bytes, keyed by blob hash:
/// the memory tier of a bundle, like the memory caches of Kingfisher or Nuke.
///
/// Both limits hold at all times: inserting evicts the least recently used entries until the
/// count and the total byte size are within bounds. An entry larger than `byteLimit` is not kept.
///
/// On Apple platforms it gives memory back by itself when the system runs short: half its bytes
/// when memory is low, everything when it is critical (the least recently used first).
public final class BlobMemoryCache: @unchecked Sendable {
    /// The most entries kept; set with ``CacheBundle/Configuration/memoryCacheCountLimit``.
    public let countLimit: Int
    /// The most bytes kept; set with ``CacheBundle/Configuration/memoryCacheByteLimit``.
    public let byteLimit: Int

    private final class Node {
        let key: String
        let data: Data
        var previous: Node?
        var next: Node?
        init(key: String, data: Data) {
            self.key = key
            self.data = data
        }
    }

    private let lock = NSLock()
    private var nodes: [String: Node] = [:]
    private var head: Node?  // most recently used
    private var tail: Node?  // least recently used
    private var totalBytes = 0
    /// The system's memory-pressure events, while the cache lives (Apple platforms).
    private var pressure: LibC.MemoryPressureObserver?

    /// An empty cache with these limits (negative limits count as 0: nothing is kept).
    package init(countLimit: Int, byteLimit: Int) {
        self.countLimit = max(0, countLimit)
        self.byteLimit = max(0, byteLimit)
        pressure = LibC.MemoryPressureObserver { [weak self] critical in
            self?.relieveMemoryPressure(critical: critical)
        }
    }

    /// The number of blobs in memory now.
    public var count: Int { lock.withLock { nodes.count } }
    /// The bytes held in memory now.
    public var byteCount: Int { lock.withLock { totalBytes } }

    /// The bytes for `key`, marking them most recently used.
    public func data(forKey key: String) -> Data? {
        lock.withLock {
            guard let node = nodes[key] else { return nil }
            moveToFront(node)
            return node.data
        }
    }

    /// Whether `key` is cached, without marking it used.
    public func contains(_ key: String) -> Bool {
        lock.withLock { nodes[key] != nil }
    }

    /// Keeps `data` under `key` as the most recently used entry, evicting the least recently used
    /// ones until both limits hold.
    package func insert(_ data: Data, forKey key: String) {
        lock.withLock {
            if let existing = nodes[key] { remove(existing) }
            guard data.count <= byteLimit, countLimit > 0 else { return }
            let node = Node(key: key, data: data)
            nodes[key] = node
            totalBytes += data.count
            node.next = head
            head?.previous = node
            head = node
            if tail == nil { tail = node }
            while nodes.count > countLimit || totalBytes > byteLimit, let last = tail {
                remove(last)
            }
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

    /// Empties the cache. On Apple platforms it does so by itself when memory is critical; call it
    /// when the app itself needs the memory. Later reads go to disk and fill it again.
    public func removeAll() {
        lock.withLock {
            nodes.removeAll()
            head = nil
            tail = nil
            totalBytes = 0
        }
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
        totalBytes -= node.data.count
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
