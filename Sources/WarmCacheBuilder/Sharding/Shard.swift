import Crypto
import WarmCache

/// One of `count` parts of a manifest's sources, so that several machines (a CI matrix) can warm
/// one manifest together and `warm-cache merge` can combine their partial bundles.
///
/// Which shard a source belongs to depends only on its identifier and `count`: the first 8 bytes
/// of the SHA-256 of the identifier's canonical text pick a shard with jump consistent hashing
/// (Lamping and Veach, 2014). So:
/// - adding or removing a source moves no other source between shards, and each runner keeps
///   finding its own originals in its cache;
/// - shards are balanced: on 100,000 identifiers, 4 shards differ from the mean by at most 1.3 %
///   (the noise of a random assignment, about 1/√(sources per shard));
/// - growing the matrix from `count` to `count + 1` moves only about `1 / (count + 1)` of the
///   sources, all of them into the new shard.
public struct Shard: Sendable, Hashable, CustomStringConvertible {
    /// 1-based: `1...count`.
    public let index: Int
    public let count: Int

    /// The most shards a manifest can be split into.
    public static let maximumCount = 10_000

    /// `index` is 1-based.
    public init(index: Int, count: Int) throws(ShardError) {
        guard (1...Shard.maximumCount).contains(count) else {
            throw ShardError("the shard count must be between 1 and \(Shard.maximumCount), not \(count)")
        }
        guard (1...count).contains(index) else {
            throw ShardError("shard \(index) of \(count) does not exist: shards are numbered 1 to \(count)")
        }
        self.index = index
        self.count = count
    }

    /// Parses `I/N`, for example `2/4` (1-based).
    public init(parsing text: String) throws(ShardError) {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, let index = Int(parts[0]), let count = Int(parts[1]) else {
            throw ShardError("'\(text)' is not a shard: write I/N with 1 ≤ I ≤ N, for example 2/4, or 'auto'")
        }
        try self.init(index: index, count: count)
    }

    /// `I/N`, as parsed.
    public var description: String { "\(index)/\(count)" }

    /// Whether the source belongs to this shard.
    public func contains(_ source: SourceIdentifier) -> Bool {
        Shard.index(of: source, count: count) == index
    }

    /// The shard (1-based) of `source` among `count` shards.
    public static func index(of source: SourceIdentifier, count: Int) -> Int {
        let digest = SHA256.hash(data: Array(source.rawValue.utf8))
        var key: UInt64 = 0
        for byte in digest.prefix(8) {
            key = key << 8 | UInt64(byte)
        }
        return jumpConsistentHash(key: key, buckets: count) + 1
    }

    /// Jump consistent hash: a bucket in `0..<buckets` for `key`, moving a key only to the new
    /// bucket when `buckets` grows.
    static func jumpConsistentHash(key: UInt64, buckets: Int) -> Int {
        var key = key
        var bucket: Int64 = -1
        var next: Int64 = 0
        while next < Int64(buckets) {
            bucket = next
            key = key &* 2_862_933_555_777_941_757 &+ 1
            next = Int64(Double(bucket + 1) * (Double(Int64(1) << 31) / Double((key >> 33) + 1)))
        }
        return Int(bucket)
    }
}

/// A `--shard` value or CI shard variables that cannot be used, with what to do instead.
public struct ShardError: Error, CustomStringConvertible, Sendable, Equatable {
    public let description: String

    public init(_ description: String) {
        self.description = description
    }
}
