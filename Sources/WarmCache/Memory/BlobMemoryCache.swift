import Foundation

/// A bounded, thread-safe least-recently-used cache of blob bytes, keyed by blob hash:
/// the memory tier of a bundle, like the memory caches of Kingfisher or Nuke.
///
/// Both limits hold at all times: inserting evicts the least recently used entries until the
/// count and the total byte size are within bounds. An entry larger than `byteLimit` is not kept.
///
/// On Apple platforms it gives memory back by itself when the system runs short: half its bytes
/// when memory is low, everything when it is critical (the least recently used first).
public final class BlobMemoryCache: Sendable {
    /// The most entries kept; set with ``CacheBundle/Configuration/memoryCacheCountLimit``.
    public var countLimit: Int { entries.countLimit }
    /// The most bytes kept; set with ``CacheBundle/Configuration/memoryCacheByteLimit``.
    public var byteLimit: Int { entries.byteLimit }

    private let entries: LRUCache<String, Data>

    /// An empty cache with these limits (negative limits count as 0: nothing is kept).
    package init(countLimit: Int, byteLimit: Int) {
        entries = LRUCache(countLimit: countLimit, byteLimit: byteLimit) { $0.count }
    }

    /// The number of blobs in memory now.
    public var count: Int { entries.count }
    /// The bytes held in memory now.
    public var byteCount: Int { entries.byteCount }

    /// The bytes for `key`, marking them most recently used.
    public func data(forKey key: String) -> Data? {
        entries.value(forKey: key)
    }

    /// Whether `key` is cached, without marking it used.
    public func contains(_ key: String) -> Bool {
        entries.contains(key)
    }

    /// Keeps `data` under `key` as the most recently used entry, evicting the least recently used
    /// ones until both limits hold.
    package func insert(_ data: Data, forKey key: String) {
        entries.insert(data, forKey: key)
    }

    /// What the cache does when the system runs short of memory: keeps at most half its byte
    /// limit when memory is low, nothing when it is critical.
    package func relieveMemoryPressure(critical: Bool) {
        entries.relieveMemoryPressure(critical: critical)
    }

    /// Empties the cache. On Apple platforms it does so by itself when memory is critical; call it
    /// when the app itself needs the memory. Later reads go to disk and fill it again.
    public func removeAll() {
        entries.removeAll()
    }
}
