import Foundation

/// Several bundles read as one, newest first: typically the bundle an updater keeps current,
/// then the one shipped in the app's resources.
///
/// ```swift
/// let images = try LayeredCacheBundle(contentsOf: [
///     downloadedDirectory,                                                 // kept fresh by BundleUpdater
///     Bundle.main.url(forResource: "Images", withExtension: "warmcache")!, // shipped with the app
/// ])
/// let hit = try images.bestImage(for: url, size: PointSize(width: 100, height: 100), scale: 3)
/// ```
///
/// Lookups are those of ``CacheBundle``. A source is answered by the newest layer that lists it,
/// and only by that one: its variants hide every variant an older layer has for the same source,
/// so an image re-baked in a newer bundle never shows in a stale size or format. Sources a newer
/// layer does not list fall through to the older ones.
public final class LayeredCacheBundle: ImageLookup {
    /// The layers, newest first.
    public let layers: [CacheBundle]

    /// Reads `layers`, newest first.
    public init(layers: [CacheBundle]) {
        self.layers = layers
    }

    /// Opens the bundles at `urls`, newest first. A URL with no index yet (an update directory
    /// before its first complete download) is skipped; any other problem throws.
    ///
    /// - Parameters:
    ///   - urls: Bundle directories, newest first: typically the directory an updater maintains,
    ///     then the bundle shipped in the app.
    ///   - configuration: Used for every layer.
    /// - Throws: ``CacheBundleError``, as ``CacheBundle/init(contentsOf:configuration:)`` throws
    ///   it, and `bundleNotFound` when no URL holds a bundle.
    public convenience init(contentsOf urls: [URL],
                            configuration: CacheBundle.Configuration = CacheBundle.Configuration()) throws {
        let present = urls.filter {
            FileManager.default.fileExists(atPath: $0.appendingPathComponent(BundleFormat.indexFileName).path)
        }
        guard !present.isEmpty else {
            throw CacheBundleError(.bundleNotFound, bundleURL: urls.first ?? URL(fileURLWithPath: "/"),
                                   detail: "none of \(urls.map(\.path).joined(separator: ", ")) holds an index yet")
        }
        self.init(layers: try present.map { try CacheBundle(contentsOf: $0, configuration: configuration) })
    }

    /// The newest layer that lists `source`, or `nil`.
    public func layer(for source: SourceIdentifier) throws -> CacheBundle? {
        for layer in layers where try layer.contains(source) {
            return layer
        }
        return nil
    }

    // MARK: Lookup (ImageLookup; the URL and string forms and prefetch come with the protocol)

    /// The best image for a source, from the newest layer that lists it (rules of `CacheBundle`).
    public func bestImage(for source: SourceIdentifier, size: PointSize, scale: Double,
                          accepting: [ImageFormat], fit: FitMode.Kind? = nil,
                          processors: ProcessorFilter? = nil, preset: String? = nil) throws -> CachedImage? {
        try layer(for: source)?.bestImage(for: source, size: size, scale: scale, accepting: accepting, fit: fit,
                                          processors: processors, preset: preset)
    }

    /// The variant with exactly this key, from the layer that answers for its source, or `nil`.
    public func image(for key: VariantKey) throws -> CachedImage? {
        try layer(for: key.source)?.image(for: key)
    }

    /// The variant with exactly this canonical key text, or `nil`.
    public func image(forCacheKey cacheKey: String) throws -> CachedImage? {
        guard let key = VariantKey(parsing: cacheKey) else { return nil }
        return try layer(for: key.source)?.image(forCacheKey: cacheKey)
    }

    /// Every variant of a source in the layer that answers for it, ordered by cache key.
    public func images(for source: SourceIdentifier) throws -> [CachedImage] {
        try layer(for: source)?.images(for: source) ?? []
    }

    /// The placeholder the answering layer stores for a source identifier, or `nil`.
    public func placeholder(for source: SourceIdentifier) throws -> ImagePlaceholder? {
        try layer(for: source)?.placeholder(for: source)
    }

    /// Whether any layer lists this source.
    public func contains(_ source: SourceIdentifier) throws -> Bool {
        try layer(for: source) != nil
    }
}
