import Foundation
import WarmCache

/// Loads images for views: from the decoded-image memory, else the bundle, else the network,
/// decoded at the view's size. The core of WarmCacheUI's views, usable on its own.
///
/// ```swift
/// // `decoder`: WarmCacheUI's ImageIO decoder on Apple platforms, any `ImageDecoding` elsewhere.
/// let loader = ImageLoader(bundle: try CacheBundle(contentsOf: bundleURL), decoder: decoder)
/// let request = ImageRequest(url: product.imageURL, size: PointSize(width: 120, height: 120), scale: 3)
/// if let image = loader.cachedImage(for: request) {
///     show(image)                                   // first frame, no flash
/// } else {
///     show(loader.placeholder(for: request))        // the baked ThumbHash, BlurHash or colour
///     show(try await loader.image(for: request).image)
/// }
/// ```
///
/// Like Nuke's `ImagePipeline` and Kingfisher's `KingfisherManager`: identical requests in
/// flight share one download and one decode; a caller that goes away stops waiting, and the
/// shared work stops when nobody waits any more. Unlike them, an image the bundle holds is never
/// downloaded, and the bundle's variant is the one baked for the view's size. Decoding and file
/// reads happen on the loader's own few threads (see ``Configuration/decodeConcurrency``), never
/// on the main thread. Share one loader in the app (it is `Sendable`): its cache is per loader.
public final class ImageLoader: Sendable {
    /// The decoded images kept in memory.
    public let decodedCache: DecodedImageCache
    /// What the loader was made with.
    public let configuration: Configuration
    let bundle: (any ImageLookup)?
    let decoder: any ImageDecoding
    let decodeQueue: DecodeQueue
    let downloader: ImageDownloader?
    /// Decodes in flight, by what they make; downloads in flight, by URL.
    let decodes = SharedWork<DecodedImageKey, DecodedImage>()
    let downloads = SharedWork<URL, ImageDownloader.Body>()
    /// Whether the session is the loader's own, to release it with the loader.
    private let ownsSession: Bool

    /// A loader answering from `bundle` (a `CacheBundle` or `LayeredCacheBundle`; `nil` for
    /// the network alone), decoding with `decoder`.
    public init(bundle: (any ImageLookup)?, decoder: any ImageDecoding, configuration: Configuration = .init()) {
        self.bundle = bundle
        self.decoder = decoder
        self.configuration = configuration
        decodedCache = DecodedImageCache(byteLimit: configuration.decodedCacheByteLimit,
                                         countLimit: configuration.decodedCacheCountLimit)
        decodeQueue = DecodeQueue(width: configuration.decodeConcurrency)
        ownsSession = configuration.usesNetwork && configuration.session == nil
        downloader = configuration.usesNetwork
            ? ImageDownloader(session: configuration.session ?? ImageDownloader.makeSession()) : nil
    }

    deinit {
        if ownsSession { downloader?.session.finishTasksAndInvalidate() }
    }

    /// The decoded image for `request` if it is in memory now, for the first frame: one bundle
    /// lookup and one dictionary lookup, microseconds. Call it on the main thread.
    ///
    /// A decode of the same bytes at least as large as the request needs (or the whole image)
    /// answers too.
    public func cachedImage(for request: ImageRequest) -> DecodedImage? {
        guard let source = try? ImageSource.of(request, in: bundle, accepting: configuration.accepting) else { return nil }
        return decodedCache.image(for: source.key(for: request))
    }

    /// The placeholder baked for the request's URL (ThumbHash, BlurHash, average colour), if the
    /// bundle has one: what to show while the image loads.
    public func placeholder(for request: ImageRequest) -> ImagePlaceholder? {
        guard let placeholder = try? bundle?.placeholder(for: request.url), !placeholder.isEmpty else { return nil }
        return placeholder
    }

    /// The image for `request`: from memory, else the bundle, else the network, decoded at the
    /// view's size.
    ///
    /// Identical requests in flight share one download and one decode. Cancelling the calling
    /// task makes this throw `CancellationError` at once; the shared work stops when no caller
    /// waits any more (the download is cancelled, a decode not yet started is skipped).
    ///
    /// - Throws: ``ImageLoadingError`` (plain words, with the URL) when no source gives an image;
    ///   `CancellationError` when the calling task is cancelled.
    public func image(for request: ImageRequest) async throws -> ImageResponse {
        let source = try ImageSource.of(request, in: bundle, accepting: configuration.accepting)
        let key = source.key(for: request)
        if let image = decodedCache.image(for: key) {
            return ImageResponse(image: image, origin: .memory)
        }
        switch source {
        case .blob(let variant):
            let image = try await decodes.value(for: key) { [self] in try await decodeBlob(variant, as: key, for: request.url) }
            return ImageResponse(image: image, origin: .bundle)
        case .remote(let url):
            guard let downloader else { throw ImageLoadingError(url: url, reason: .notInBundle) }
            let image = try await decodes.value(for: key) { [self] in try await download(url, for: request, with: downloader, as: key) }
            return ImageResponse(image: image, origin: .network)
        }
    }
}
