import Foundation
import WarmCache
import WarmCacheImaging

/// Everything an index records, handed to ``BundleWriter/commit(_:)`` in one piece.
public struct BundleContents: Sendable {
    public var sources: [Source]
    public var variants: [Variant]
    /// Written to `meta.created_at` only when set; leave `nil` for byte-identical re-runs.
    public var createdAt: Date?
    /// The plan's ``WarmPlan/fingerprint``, written to `meta.manifest_fingerprint` when set.
    public var manifestFingerprint: String?
    /// Set for a partial bundle warmed by one shard (`meta.shard`, e.g. `2/4`); never for a merged one.
    public var shard: Shard?

    public init(sources: [Source] = [], variants: [Variant] = [], createdAt: Date? = nil,
                manifestFingerprint: String? = nil, shard: Shard? = nil) {
        self.sources = sources
        self.variants = variants
        self.createdAt = createdAt
        self.manifestFingerprint = manifestFingerprint
        self.shard = shard
    }

    /// One original image.
    public struct Source: Sendable, Hashable {
        public var identifier: SourceIdentifier
        /// Lowercase hex SHA-256 of the original's bytes.
        public var contentSHA256: String
        /// The original's format as detected (e.g. `jpeg`, `png`, `tiff`).
        public var format: String
        /// Pixel size after EXIF orientation.
        public var pixelSize: PixelSize
        public var byteCount: Int
        public var placeholder: ImagePlaceholder?

        public init(identifier: SourceIdentifier, contentSHA256: String, format: String, pixelSize: PixelSize,
                    byteCount: Int, placeholder: ImagePlaceholder? = nil) {
            self.identifier = identifier
            self.contentSHA256 = contentSHA256
            self.format = format
            self.pixelSize = pixelSize
            self.byteCount = byteCount
            self.placeholder = placeholder
        }
    }

    /// One encoded variant whose blob was stored with ``BundleWriter/storeBlob(_:format:)``.
    public struct Variant: Sendable, Hashable {
        public var key: VariantKey
        public var pixelSize: PixelSize
        public var byteCount: Int
        public var blobSHA256: String
        public var hasAlpha: Bool
        /// Manifest preset names that asked for this variant.
        public var presets: [String]
        /// For a key with a quality target: the encoder quality found and the score it reached.
        public var perceptual: PerceptualEncoding?

        public init(key: VariantKey, pixelSize: PixelSize, byteCount: Int, blobSHA256: String, hasAlpha: Bool,
                    presets: [String] = [], perceptual: PerceptualEncoding? = nil) {
            self.key = key
            self.pixelSize = pixelSize
            self.byteCount = byteCount
            self.blobSHA256 = blobSHA256
            self.hasAlpha = hasAlpha
            self.presets = presets
            self.perceptual = perceptual
        }
    }
}

/// A blob in the bundle's object store.
public struct StoredBlob: Sendable, Hashable {
    public var sha256: String
    public var format: ImageFormat
    public var byteCount: Int
    /// `false` when an identical blob was already present and nothing was written.
    public var written: Bool
}

/// What a commit did.
public struct CommitSummary: Sendable, Hashable {
    public var sourceCount: Int
    public var variantCount: Int
    /// Distinct blobs the new index references.
    public var blobCount: Int
    /// Total bytes of those blobs.
    public var blobBytes: Int
    /// Blobs of the previous bundle that nothing references any more, now deleted.
    public var blobsRemoved: Int
    /// Identifiers of the previous bundle's sources that the new index does not hold, sorted
    /// (none when there was no previous bundle, or it could not be read).
    public var removedSources: [String] = []
    /// What the published bundle weighs, by format, preset and source (when the commit measured it).
    public var payload: BundlePayload?
    /// Whether the bundle in place already was this one, so nothing was written.
    public var unchanged = false
}
