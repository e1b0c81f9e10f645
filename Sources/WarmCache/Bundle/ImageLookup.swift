import Foundation

/// The questions a bundle reader answers. ``CacheBundle`` (one bundle) and ``LayeredCacheBundle``
/// (several, newest first) both conform, so app code can take either.
///
/// ```swift
/// struct ProductImageLoader {
///     let images: any ImageLookup   // a CacheBundle, or a LayeredCacheBundle once updates arrive
///
///     func file(for url: URL, in size: PointSize, scale: Double) -> URL? {
///         (try? images.bestImage(for: url, size: size, scale: scale))?.fileURL
///     }
/// }
/// ```
///
/// A reader implements the forms that take a ``SourceIdentifier``; the URL and string forms and
/// ``prefetch(_:size:scale:accepting:fit:processors:preset:priority:)`` come with the protocol.
/// Every method can be called from any thread.
public protocol ImageLookup: Sendable {
    /// The best image for a source identifier, by the rules of the URL form
    /// (``ImageLookup/bestImage(for:size:scale:accepting:fit:processors:preset:)-(URL,_,_,_,_,_,_)``), which
    /// apps usually call instead.
    func bestImage(for source: SourceIdentifier, size: PointSize, scale: Double, accepting: [ImageFormat],
                   fit: FitMode.Kind?, processors: ProcessorFilter?, preset: String?) throws -> CachedImage?
    /// The variant with exactly this key, or `nil` if there is no such key.
    func image(for key: VariantKey) throws -> CachedImage?
    /// The variant with exactly this canonical key text, or `nil`: maps a ``CachedImage/cacheKey``
    /// that was handed to another cache back to the file.
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
    /// decodes, or `nil` if the bundle has none.
    ///
    /// ```swift
    /// let hit = try bundle.bestImage(for: url, size: PointSize(width: 100, height: 100), scale: 3)
    /// ```
    ///
    /// The answer is the smallest variant whose pixels cover `size x scale` for its fit mode, else
    /// the largest there is; ties go to the earlier format in `accepting`, then to fewer processors
    /// and fewer bytes. A variant whose blob is not on disk with its size is never the answer: the
    /// next best is. The exact rules are in the bundle format's reference (docs/bundle-format.md,
    /// "Finding the best image"). Call it from any thread; it takes microseconds.
    ///
    /// - Parameters:
    ///   - url: The image's URL as the manifest lists it; it is normalised as the builder
    ///     normalised it (see ``SourceIdentifier``).
    ///   - size: The view's size in points. A side of 0 leaves it unconstrained.
    ///   - scale: The screen's scale (pixels per point), e.g. a trait collection's `displayScale`.
    ///   - accepting: The formats the caller decodes, best first. By default
    ///     ``ImageFormat/decodedHere``: what this device's system decoders read (AVIF from iOS 16,
    ///     WebP from iOS 14), smallest files first. Pass a list when images go to another decoder.
    ///   - fit: only variants of this fit mode (any when `nil`).
    ///   - processors: which processed variants may answer. `nil` (the default) means unprocessed ones
    ///     only, unless `preset` is given, then any the preset lists; pass `.any` for any variant,
    ///     `[.roundCorners(radius: 24)]` for exactly those processors.
    ///   - preset: only variants the manifest listed under this preset name (`(entry)` for those an
    ///     image entry described itself); any when `nil`.
    /// - Returns: The chosen variant, or `nil` when the bundle lists no acceptable variant of the
    ///   source (a miss, to be loaded from the network).
    /// - Throws: ``CacheBundleError`` (`corruptIndex`) when the index cannot be read.
    public func bestImage(for url: URL, size: PointSize, scale: Double,
                          accepting: [ImageFormat] = ImageFormat.decodedHere, fit: FitMode.Kind? = nil,
                          processors: ProcessorFilter? = nil, preset: String? = nil) throws -> CachedImage? {
        try bestImage(for: SourceIdentifier(url.absoluteString), size: size, scale: scale, accepting: accepting,
                      fit: fit, processors: processors, preset: preset)
    }

    /// The best image for a source named by a string: a URL (normalised) or, verbatim, a local
    /// file's path as the manifest wrote it or the `key:` the manifest gave it.
    ///
    /// ```swift
    /// let logo = try bundle.bestImage(for: "asset://logo", size: PointSize(width: 120, height: 40), scale: 2)
    /// ```
    ///
    /// Parameters, rules and errors are those of
    /// ``ImageLookup/bestImage(for:size:scale:accepting:fit:processors:preset:)-(URL,_,_,_,_,_,_)``.
    public func bestImage(for source: String, size: PointSize, scale: Double,
                          accepting: [ImageFormat] = ImageFormat.decodedHere, fit: FitMode.Kind? = nil,
                          processors: ProcessorFilter? = nil, preset: String? = nil) throws -> CachedImage? {
        try bestImage(for: SourceIdentifier(source), size: size, scale: scale, accepting: accepting,
                      fit: fit, processors: processors, preset: preset)
    }

    /// The placeholder baked for the image at `url` (ThumbHash, BlurHash, average colour), or
    /// `nil` if the bundle has none for it: show it while the real image loads.
    ///
    /// ```swift
    /// let pixels = try bundle.placeholder(for: url)?.pixels(width: 32, height: 32)
    /// ```
    ///
    /// - Throws: ``CacheBundleError`` (`corruptIndex`) when the index cannot be read.
    public func placeholder(for url: URL) throws -> ImagePlaceholder? {
        try placeholder(for: SourceIdentifier(url.absoluteString))
    }

    /// Loads the images that `bestImage` would return for these URLs into the memory tier, on a
    /// background task, so that showing them later does no disk read.
    ///
    /// ```swift
    /// // The next screen of a feed:
    /// bundle.prefetch(upcoming.map(\.imageURL), size: PointSize(width: 120, height: 120), scale: 3)
    /// ```
    ///
    /// Returns at once. Duplicate requests, in this call or in concurrent ones, read each blob
    /// only once. Cancel the returned task to stop (e.g. when the user scrolls away); await its
    /// value for a ``PrefetchSummary``. What fits is bounded by the memory cache's limits
    /// (``CacheBundle/Configuration``): prefetch about a screenful, not the whole bundle.
    ///
    /// - Parameters:
    ///   - urls: The images to load, as for
    ///     ``ImageLookup/bestImage(for:size:scale:accepting:fit:processors:preset:)-(URL,_,_,_,_,_,_)``.
    ///   - size: The size, in points, of the views that will show them.
    ///   - scale: The screen's scale.
    ///   - accepting: The formats the caller decodes, best first (what this device decodes by default).
    ///   - fit: Only variants of this fit mode (any when `nil`).
    ///   - processors: Which processed variants may answer, as for a lookup.
    ///   - preset: Only variants of this manifest preset (any when `nil`).
    ///   - priority: The priority of the background task (`.utility` by default).
    /// - Returns: The task doing the work; its value says what it did.
    @discardableResult
    public func prefetch(_ urls: [URL], size: PointSize, scale: Double, accepting: [ImageFormat] = ImageFormat.decodedHere,
                         fit: FitMode.Kind? = nil, processors: ProcessorFilter? = nil, preset: String? = nil,
                         priority: TaskPriority = .utility) -> Task<PrefetchSummary, Never> {
        BlobPrefetcher.shared.prefetch(urls.map { SourceIdentifier($0.absoluteString) }, priority: priority) { source in
            try self.bestImage(for: source, size: size, scale: scale, accepting: accepting, fit: fit,
                               processors: processors, preset: preset)
        }
    }
}
