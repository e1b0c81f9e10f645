import Foundation

/// A static file the fixture server serves, with optional validators.
///
/// When `etag` or `lastModified` is set, the server answers conditional requests the way
/// a real CDN does: `If-None-Match` (strong or weak match, or `*`) takes precedence, and
/// otherwise `If-Modified-Since` at or after `lastModified` gives `304 Not Modified`.
public struct FixtureResource: Sendable {
    public var body: [UInt8]
    public var contentType: String?
    /// Sent verbatim as the `ETag` header, so include the quotes: `"\"v1\""`.
    public var etag: String?
    /// Sent as `Last-Modified` (an HTTP-date, whole seconds).
    public var lastModified: Date?

    public init(body: [UInt8], contentType: String? = "application/octet-stream", etag: String? = nil, lastModified: Date? = nil) {
        self.body = body
        self.contentType = contentType
        self.etag = etag
        self.lastModified = lastModified
    }
}

/// What the fixture server does for one path. Routes nest: a behaviour such as
/// `.delayed` or `.truncated` wraps the route whose response it alters.
public indirect enum FixtureRoute: Sendable {
    /// Static bytes with `Content-Length`, validators and `304` handling.
    case resource(FixtureResource)
    /// A canned response: any status, headers and body (no conditional handling).
    case response(status: Int, headers: [(name: String, value: String)], body: [UInt8])
    /// A redirect (`301`, `302`, `303`, `307`, `308`) to `location`, sent verbatim, so it
    /// may be relative, point to another scheme (`ftp://…`, `file:///…`) or loop.
    case redirect(status: Int, location: String)
    /// The n-th request to the path (counting from 0) gets the n-th route; the last one
    /// repeats. The way to script "fail twice, then succeed".
    case sequence([FixtureRoute])
    /// Sends the response head only after `seconds` (a slow server).
    case delayed(seconds: TimeInterval, FixtureRoute)
    /// Sends the response head only once the test opens `gate` (a request kept in flight).
    case held(FixtureGate, FixtureRoute)
    /// Sends the body in `chunkSize` pieces, `interval` seconds apart (a slow transfer).
    case trickled(chunkSize: Int, interval: TimeInterval, FixtureRoute)
    /// Declares the full `Content-Length` but sends only the first `afterBytes` bytes of
    /// the body, then closes the connection (a cut transfer).
    case truncated(afterBytes: Int, FixtureRoute)
    /// Sends the body with chunked transfer encoding instead of a `Content-Length`.
    case chunked(FixtureRoute)
    /// `200` with a chunked body that never ends: the same bytes again and again until the client
    /// goes away (a response of endless data).
    case endless(contentType: String)
    /// Serves the files of a directory below this route's path, which must end in `/`:
    /// `setRoute("/photos/", .directory(folder))` maps `/photos/a.jpg` to `folder/a.jpg`.
    /// Each file gets an `ETag` and `Last-Modified` from its size and modification time.
    case directory(URL)

    /// A plain status answer with a short text body.
    public static func status(_ code: Int, body: String = "") -> FixtureRoute {
        .response(status: code, headers: [("Content-Type", "text/plain")], body: Array(body.utf8))
    }

    /// An HTML page served with `200 OK`, like a CDN's "soft 404" or a login wall.
    public static func html(_ page: String = "<!DOCTYPE html>\n<html><head><title>Not found</title></head><body>Sorry</body></html>\n") -> FixtureRoute {
        .response(status: 200, headers: [("Content-Type", "text/html; charset=utf-8")], body: Array(page.utf8))
    }

    /// `429 Too Many Requests` with the given `Retry-After` value (seconds or HTTP-date).
    public static func tooManyRequests(retryAfter: String) -> FixtureRoute {
        .response(status: 429, headers: [("Retry-After", retryAfter), ("Content-Type", "text/plain")], body: Array("slow down".utf8))
    }

    /// Fails `times` times with `status`, then behaves like `then`.
    public static func failing(times: Int, status: Int = 500, then: FixtureRoute) -> FixtureRoute {
        .sequence(Array(repeating: .status(status, body: "failure"), count: max(0, times)) + [then])
    }

    /// Static bytes served as an image of the given MIME type.
    public static func image(_ body: [UInt8], contentType: String = "image/png", etag: String? = nil, lastModified: Date? = nil) -> FixtureRoute {
        .resource(FixtureResource(body: body, contentType: contentType, etag: etag, lastModified: lastModified))
    }
}
