import Foundation

/// One encoded image found in a bundle: where its bytes are and what they are.
///
/// `fileURL` can be handed to any loader that reads files (Kingfisher's
/// `LocalFileImageDataProvider`, a Nuke request for a `file://` URL, `UIImage(contentsOfFile:)`);
/// ``data()`` reads the bytes through the bundle's memory cache.
public struct CachedImage: Sendable, Hashable, CustomStringConvertible {
    /// The canonical cache key (see ``VariantKey``).
    public let cacheKey: String
    /// The encoded format of the bytes: pick the decoder by it (or by ``ImageFormat/mimeType``).
    public let format: ImageFormat
    /// The true pixel size of the encoded image (never larger than the source unless upscaling was asked for).
    public let pixelSize: PixelSize
    /// The size of the blob in bytes, checked against the file on disk before it is returned.
    public let byteCount: Int
    /// Lowercase hex SHA-256 of the bytes; also the blob's file name.
    public let sha256: String
    /// Whether the encoded image has an alpha channel (rounded corners, a transparent PNG): such
    /// an image is not drawn as an opaque layer.
    public let hasAlpha: Bool
    /// The blob on disk, readable in place.
    public var fileURL: URL { URL(fileURLWithPath: path, isDirectory: false) }
    /// The blob's absolute path (what ``fileURL`` points at).
    public let path: String
    private let memoryCache: BlobMemoryCache
    private let bundleURL: URL

    /// `path` is the blob's absolute path, checked by the bundle to be a file inside it.
    init(record: VariantRecord, path: String, bundleURL: URL, memoryCache: BlobMemoryCache) {
        cacheKey = record.cacheKey
        format = record.format
        pixelSize = record.pixelSize
        byteCount = record.byteCount
        sha256 = record.sha256
        hasAlpha = record.hasAlpha
        self.path = path
        self.memoryCache = memoryCache
        self.bundleURL = bundleURL
    }

    /// The parsed key: source and full variant spec.
    public var key: VariantKey? {
        VariantKey(parsing: cacheKey)
    }

    /// The encoded bytes, from the memory cache or memory-mapped from disk.
    /// - Throws: ``CacheBundleError`` (`blobMissing`) if the file is gone or unreadable.
    public func data() throws -> Data {
        if let cached = memoryCache.data(forKey: sha256) {
            return cached
        }
        return try read(options: .mappedIfSafe)
    }

    /// Whether the bytes are in the memory cache now.
    package var isInMemory: Bool {
        memoryCache.contains(sha256)
    }

    /// Names this blob in this memory cache: what a prefetch claims while it loads it.
    package var memoryKey: String {
        "\(ObjectIdentifier(memoryCache).hashValue)/\(sha256)"
    }

    /// Reads the whole file into memory (not mapped, so no page faults later) and caches it:
    /// what a prefetch does ahead of display.
    package func loadIntoMemory() throws {
        _ = try read(options: [])
    }

    private func read(options: Data.ReadingOptions) throws -> Data {
        let data: Data
        do {
            data = try Data(contentsOf: fileURL, options: options)
        } catch {
            throw CacheBundleError(.blobMissing(path: BundleFormat.objectPath(sha256: sha256, format: format)),
                                   bundleURL: bundleURL, detail: "\(PlainReason.of(error))")
        }
        memoryCache.insert(data, forKey: sha256)
        return data
    }

    /// The cache key, the blob's file name, pixel size and byte count, for logs.
    public var description: String {
        "\(cacheKey) -> \(fileURL.lastPathComponent) (\(pixelSize), \(byteCount) bytes)"
    }

    /// Two answers are equal when they name the same variant, the same bytes and the same file.
    public static func == (lhs: CachedImage, rhs: CachedImage) -> Bool {
        lhs.cacheKey == rhs.cacheKey && lhs.sha256 == rhs.sha256 && lhs.path == rhs.path
    }

    /// Hashes the cache key and the SHA-256, so answers can key a dictionary or fill a set.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(cacheKey)
        hasher.combine(sha256)
    }
}
