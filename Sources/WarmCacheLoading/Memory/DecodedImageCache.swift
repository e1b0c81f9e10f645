import Foundation
import WarmCache

/// The loader's memory of decoded images: a thread-safe least-recently-used cache bounded by the
/// bitmaps' bytes (width × height × 4 each) and by their count, like the memory caches of Nuke
/// and Kingfisher.
///
/// ```swift
/// let loader = ImageLoader(bundle: bundle, decoder: decoder,
///                          configuration: .init(decodedCacheByteLimit: 64 << 20))
/// print(loader.decodedCache.byteCount, "of", loader.decodedCache.byteLimit)
/// ```
///
/// Both limits hold at all times: inserting evicts the least recently used images until they do;
/// an image larger than the byte limit is not kept. A lookup is served by any decode of the same
/// bytes at least as large as asked for (or at full size), the smallest first, so a cell that
/// grows does not decode again, and one that shrinks reuses what the larger one decoded.
///
/// On Apple platforms it gives memory back by itself when the system runs short, as the bundle's
/// `BlobMemoryCache` does (the same eviction, WarmCache's `LRUCache`): half its bytes when memory
/// is low, everything when it is critical.
public final class DecodedImageCache: @unchecked Sendable {
    /// The most bytes of bitmaps kept.
    public var byteLimit: Int { images.byteLimit }
    /// The most images kept.
    public var countLimit: Int { images.countLimit }

    /// The decoded images, by what they were decoded from and at which size.
    private let images: LRUCache<DecodedImageKey, DecodedImage>
    /// The sizes each image's bytes were decoded at: the few a screen shows one image at. An
    /// entry the cache has since evicted is dropped when a lookup finds it gone.
    private var sizes: [DecodedImageKey.Bytes: Set<Int>] = [:]
    private let lock = NSLock()

    /// An empty cache with these limits (negative limits count as 0: nothing is kept).
    package init(byteLimit: Int, countLimit: Int) {
        images = LRUCache(countLimit: countLimit, byteLimit: byteLimit) { $0.byteCost }
    }

    /// The number of decoded images held now.
    public var count: Int { images.count }
    /// The bytes of bitmaps held now.
    public var byteCount: Int { images.byteCount }
    /// The most bytes held at once since the cache was made (or ``resetPeakByteCount()``).
    package var peakByteCount: Int { images.peakByteCount }

    /// The smallest decode of `key`'s bytes that serves `key`'s size, marking it most recently used.
    public func image(for key: DecodedImageKey) -> DecodedImage? {
        lock.withLock { bestKey(for: key).flatMap { images.value(forKey: $0) } }
    }

    /// Whether a decode serving `key` is held, without marking it used.
    public func contains(_ key: DecodedImageKey) -> Bool {
        lock.withLock { bestKey(for: key) != nil }
    }

    /// Keeps `image` under `key` as the most recently used, evicting the least recently used
    /// images until both limits hold.
    package func insert(_ image: DecodedImage, for key: DecodedImageKey) {
        lock.withLock {
            images.insert(image, forKey: key)
            if images.contains(key) { sizes[key.bytes, default: []].insert(key.maxPixelSize) }
            // Evictions leave sizes behind; once they outnumber the images held, sweep them all
            // (amortised: the sweep is as long as the sizes it lets accumulate).
            if sizes.count > 2 * images.count + 64 { sweepEvictedSizes() }
        }
    }

    private func sweepEvictedSizes() {
        for (bytes, decoded) in sizes {
            let held = decoded.filter { images.contains(DecodedImageKey(bytes: bytes, maxPixelSize: $0)) }
            sizes[bytes] = held.isEmpty ? nil : held
        }
    }

    /// What the cache does when the system runs short of memory: keeps at most half its byte
    /// limit when memory is low, nothing when it is critical.
    package func relieveMemoryPressure(critical: Bool) {
        images.relieveMemoryPressure(critical: critical)
    }

    /// Empties the cache; later requests decode again. Call it when the app needs the memory.
    public func removeAll() {
        lock.withLock {
            images.removeAll()
            sizes.removeAll()
        }
    }

    /// Starts a new high-water mark from the bytes held now.
    package func resetPeakByteCount() {
        images.resetPeakByteCount()
    }

    /// The key of the decode that serves `key`: its own, else the smallest decode of the same
    /// bytes at least as large as asked for, or of the whole image. Drops sizes evicted since.
    private func bestKey(for key: DecodedImageKey) -> DecodedImageKey? {
        guard let decoded = sizes[key.bytes] else { return nil }
        var best: (key: DecodedImageKey, cost: Int)?
        var gone: [Int] = []
        for size in decoded {
            let candidate = DecodedImageKey(bytes: key.bytes, maxPixelSize: size)
            guard let image = images.peek(candidate) else {
                gone.append(size)
                continue
            }
            if candidate == key { return candidate }
            if Self.decode(image, askedAt: size, serves: key.maxPixelSize), image.byteCost < best?.cost ?? .max {
                best = (candidate, image.byteCost)
            }
        }
        if !gone.isEmpty {
            sizes[key.bytes]?.subtract(gone)
            if sizes[key.bytes]?.isEmpty == true { sizes[key.bytes] = nil }
        }
        return best?.key
    }

    /// Whether `image`, decoded when asked at `askedAt`, can stand for one asked at `maxPixelSize`:
    /// it is at least that large, or it is the whole image (asked at full size, or came out
    /// smaller than asked).
    private static func decode(_ image: DecodedImage, askedAt: Int, serves maxPixelSize: Int) -> Bool {
        let isWhole = askedAt == 0 || image.longestSide < askedAt
        return isWhole || (maxPixelSize > 0 && image.longestSide >= maxPixelSize)
    }
}
