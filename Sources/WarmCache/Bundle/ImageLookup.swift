import Foundation

/// The questions a bundle reader answers. ``CacheBundle`` (one bundle) and ``LayeredCacheBundle``
/// (several, newest first) both conform, so app code can take either.
///
/// A reader implements the forms that take a ``SourceIdentifier``; the URL and string forms and
/// ``prefetch(_:size:scale:accepting:fit:processors:preset:priority:)`` come with the protocol.
public protocol ImageLookup: Sendable {
    /// The best image for a source identifier, by the rules of the URL form below.
    func bestImage(for source: SourceIdentifier, size: PointSize, scale: Double, accepting: [ImageFormat],
                   fit: FitMode.Kind?, processors: ProcessorFilter?, preset: String?) throws -> CachedImage?
    /// The variant with exactly this key, or `nil` if there is no such key.
    func image(for key: VariantKey) throws -> CachedImage?
    /// The variant with exactly this canonical key text, or `nil`.
    func image(forCacheKey cacheKey: String) throws -> CachedImage?
    /// Every variant of a source whose blob is on disk, ordered by cache key.
    func images(for source: SourceIdentifier) throws -> [CachedImage]
    /// The placeholder stored for a source, or `nil`.
    func placeholder(for source: SourceIdentifier) throws -> ImagePlaceholder?
    /// Whether the reader lists this source at all.
    func contains(_ source: SourceIdentifier) throws -> Bool
}

extension ImageLookup {
    /// The best image for `url` shown at `size` points on a screen of `scale`, in a format the caller
    /// decodes, or `nil` if the bundle has none. See ``VariantSelector`` for the rules; in short: the
    /// smallest variant that covers `size x scale` pixels, else the largest there is; ties go to the
    /// earlier format in `accepting`. A variant whose blob is not on disk with its size is never the answer.
    ///
    /// - Parameters:
    ///   - fit: only variants of this fit mode (any when `nil`).
    ///   - processors: which processed variants may answer. `nil` (the default) means unprocessed ones
    ///     only, unless `preset` is given, then any the preset lists; pass `.any` for any variant,
    ///     `[.roundCorners(radius: 24)]` for exactly those processors.
    ///   - preset: only variants the manifest listed under this preset name (`(entry)` for those an
    ///     image entry described itself); any when `nil`.
    public func bestImage(for url: URL, size: PointSize, scale: Double,
                          accepting: [ImageFormat] = [.jpeg, .png], fit: FitMode.Kind? = nil,
                          processors: ProcessorFilter? = nil, preset: String? = nil) throws -> CachedImage? {
        try bestImage(for: SourceIdentifier(url.absoluteString), size: size, scale: scale, accepting: accepting,
                      fit: fit, processors: processors, preset: preset)
    }

    /// The same, for a source named by a string: a URL (normalised) or a manifest path or `key:` (verbatim).
    public func bestImage(for source: String, size: PointSize, scale: Double,
                          accepting: [ImageFormat] = [.jpeg, .png], fit: FitMode.Kind? = nil,
                          processors: ProcessorFilter? = nil, preset: String? = nil) throws -> CachedImage? {
        try bestImage(for: SourceIdentifier(source), size: size, scale: scale, accepting: accepting,
                      fit: fit, processors: processors, preset: preset)
    }

    /// The placeholder stored for a source, or `nil` if there is none for it.
    public func placeholder(for url: URL) throws -> ImagePlaceholder? {
        try placeholder(for: SourceIdentifier(url.absoluteString))
    }

    /// Loads the images that `bestImage` would return for these URLs into the memory tier, on a
    /// background task, so that showing them later does no disk read.
    ///
    /// ```swift
    /// // The next screen of a feed:
    /// bundle.prefetch(upcoming.map(\.imageURL), size: PointSize(width: 120, height: 120), scale: 3,
    ///                 accepting: [.avif, .webp, .jpeg])
    /// ```
    ///
    /// Returns at once. Duplicate requests, in this call or in concurrent ones, read each blob
    /// only once. Cancel the returned task to stop (e.g. when the user scrolls away); await its
    /// value for a ``PrefetchSummary``. What fits is bounded by the memory cache's limits
    /// (``CacheBundle/Configuration``): prefetch about a screenful, not the whole bundle.
    @discardableResult
    public func prefetch(_ urls: [URL], size: PointSize, scale: Double, accepting: [ImageFormat] = [.jpeg, .png],
                         fit: FitMode.Kind? = nil, processors: ProcessorFilter? = nil, preset: String? = nil,
                         priority: TaskPriority = .utility) -> Task<PrefetchSummary, Never> {
        BlobPrefetcher.shared.prefetch(urls.map { SourceIdentifier($0.absoluteString) }, priority: priority) { source in
            try self.bestImage(for: source, size: size, scale: scale, accepting: accepting, fit: fit,
                               processors: processors, preset: preset)
        }
    }
}
