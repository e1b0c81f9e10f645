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
/// `BlobMemoryCache` does: half its bytes when memory is low, everything when it is critical.
public final class DecodedImageCache: @unchecked Sendable {
    /// The most bytes of bitmaps kept.
    public let byteLimit: Int
    /// The most images kept.
    public let countLimit: Int

    private final class Node {
        let key: DecodedImageKey
        let image: DecodedImage
        var previous: Node?
        var next: Node?
        init(key: DecodedImageKey, image: DecodedImage) {
            self.key = key
            self.image = image
        }

        /// Whether this decode can stand for one asked at `maxPixelSize`: it is at least that
        /// large, or it is the whole image (asked at full size, or came out smaller than asked).
        func serves(_ maxPixelSize: Int) -> Bool {
            let isWhole = key.maxPixelSize == 0 || image.longestSide < key.maxPixelSize
            return isWhole || (maxPixelSize > 0 && image.longestSide >= maxPixelSize)
        }
    }

    private let lock = NSLock()
    /// Every decode of the same bytes, few per key: the sizes a screen shows one image at.
    private var decodes: [DecodedImageKey.Bytes: [Node]] = [:]
    private var head: Node?  // most recently used
    private var tail: Node?  // least recently used
    private var nodeCount = 0
    private var totalBytes = 0
    private var peakBytes = 0
    private var pressure: LibC.MemoryPressureObserver?

    /// An empty cache with these limits (negative limits count as 0: nothing is kept).
    package init(byteLimit: Int, countLimit: Int) {
        self.byteLimit = max(0, byteLimit)
        self.countLimit = max(0, countLimit)
        pressure = LibC.MemoryPressureObserver { [weak self] critical in
            self?.relieveMemoryPressure(critical: critical)
        }
    }

    /// The number of decoded images held now.
    public var count: Int { lock.withLock { nodeCount } }
    /// The bytes of bitmaps held now.
    public var byteCount: Int { lock.withLock { totalBytes } }
    /// The most bytes held at once since the cache was made (or ``resetPeakByteCount()``).
    package var peakByteCount: Int { lock.withLock { peakBytes } }

    /// The smallest decode of `key`'s bytes that serves `key`'s size, marking it most recently used.
    public func image(for key: DecodedImageKey) -> DecodedImage? {
        lock.withLock {
            guard let node = bestNode(for: key) else { return nil }
            moveToFront(node)
            return node.image
        }
    }

    /// Whether a decode serving `key` is held, without marking it used.
    public func contains(_ key: DecodedImageKey) -> Bool {
        lock.withLock { bestNode(for: key) != nil }
    }

    /// Keeps `image` under `key` as the most recently used, evicting the least recently used
    /// images until both limits hold.
    package func insert(_ image: DecodedImage, for key: DecodedImageKey) {
        lock.withLock {
            if let existing = decodes[key.bytes]?.first(where: { $0.key == key }) { remove(existing) }
            guard image.byteCost <= byteLimit, countLimit > 0 else { return }
            let node = Node(key: key, image: image)
            decodes[key.bytes, default: []].append(node)
            nodeCount += 1
            totalBytes += image.byteCost
            moveToFront(node)
            while nodeCount > countLimit || totalBytes > byteLimit, let last = tail { remove(last) }
            peakBytes = max(peakBytes, totalBytes)
        }
    }

    /// What the cache does when the system runs short of memory: keeps at most half its byte
    /// limit when memory is low, nothing when it is critical.
    package func relieveMemoryPressure(critical: Bool) {
        guard !critical else { return removeAll() }
        lock.withLock {
            while totalBytes > byteLimit / 2, let last = tail { remove(last) }
        }
    }

    /// Empties the cache; later requests decode again. Call it when the app needs the memory.
    public func removeAll() {
        lock.withLock {
            decodes.removeAll()
            head = nil
            tail = nil
            nodeCount = 0
            totalBytes = 0
        }
    }

    /// Starts a new high-water mark from the bytes held now.
    package func resetPeakByteCount() {
        lock.withLock { peakBytes = totalBytes }
    }

    private func bestNode(for key: DecodedImageKey) -> Node? {
        guard let nodes = decodes[key.bytes] else { return nil }
        if let exact = nodes.first(where: { $0.key == key }) { return exact }
        return nodes.filter { $0.serves(key.maxPixelSize) }.min { $0.image.byteCost < $1.image.byteCost }
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
        decodes[node.key.bytes]?.removeAll { $0 === node }
        if decodes[node.key.bytes]?.isEmpty == true { decodes[node.key.bytes] = nil }
        nodeCount -= 1
        totalBytes -= node.image.byteCost
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
