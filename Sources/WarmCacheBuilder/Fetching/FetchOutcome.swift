import Foundation

/// The validators a server attached to a response, replayed on the next build so an
/// unchanged image costs one `304 Not Modified` instead of a download.
///
/// Both are stored exactly as the server sent them: an `ETag` keeps its quotes and any
/// `W/` prefix, a `Last-Modified` is the raw HTTP-date text.
public struct CacheValidators: Sendable, Codable, Hashable {
    /// The `ETag` response header, sent back as `If-None-Match`.
    public var etag: String?
    /// The `Last-Modified` response header, sent back as `If-Modified-Since`.
    public var lastModified: String?

    public init(etag: String? = nil, lastModified: String? = nil) {
        self.etag = etag
        self.lastModified = lastModified
    }

    /// Whether there is anything to send in a conditional request.
    public var isEmpty: Bool { etag == nil && lastModified == nil }
}

/// What ``ImageFetcher/fetch(_:to:validators:)`` produced.
public enum FetchOutcome: Sendable {
    /// A complete, verified body is now at the destination.
    case downloaded(FetchedOriginal)
    /// The server answered `304 Not Modified` to a conditional request: the copy the
    /// caller already has is current, and the destination was not touched. The
    /// validators are the ones to store for next time (the server may refresh them).
    case notModified(CacheValidators)
}

/// A downloaded original image, as written to the destination.
public struct FetchedOriginal: Sendable {
    /// The URL the bytes finally came from, after redirects.
    public var finalURL: URL
    /// Size of the body in bytes.
    public var byteCount: Int
    /// SHA-256 of the body as lowercase hex, computed while streaming it to disk.
    public var sha256: String
    /// Validators to send on the next build.
    public var validators: CacheValidators
    /// The `Content-Type` the server declared, if any (informational: the format is sniffed).
    public var contentType: String?
    /// The format recognised from the body's first bytes.
    public var sniffedFormat: SniffedFormat
    /// How many attempts it took (1 when the first one succeeded).
    public var attempts: Int
    /// Wall-clock seconds from the first attempt to the verified file, backoff included.
    public var duration: TimeInterval
    /// Every body byte received for it: this body's, and those of the attempts that failed
    /// part-way before it (what progress showed, and what the report counts).
    public var bytesReceived: Int

    public init(
        finalURL: URL, byteCount: Int, sha256: String, validators: CacheValidators,
        contentType: String?, sniffedFormat: SniffedFormat, attempts: Int, duration: TimeInterval,
        bytesReceived: Int? = nil
    ) {
        self.bytesReceived = bytesReceived ?? byteCount
        self.finalURL = finalURL
        self.byteCount = byteCount
        self.sha256 = sha256
        self.validators = validators
        self.contentType = contentType
        self.sniffedFormat = sniffedFormat
        self.attempts = attempts
        self.duration = duration
    }
}
