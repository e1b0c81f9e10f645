import Foundation

/// What a warm run did, source by source. Written by `warm --report report.json`; the JSON
/// schema is documented in docs/report.md.
///
/// Sources appear in identifier order, variants in cache-key order, so two reports of the same
/// run differ only in timings.
public struct WarmReport: Sendable, Codable {
    /// The version of this report's JSON shape (docs/report.md). A new field keeps the number; a
    /// renamed or removed one, or a changed meaning, raises it.
    public var reportVersion = WarmReport.currentVersion
    public static let currentVersion = 1
    public var manifest: String
    public var output: String
    /// `ok`, `partial` (some sources failed; the bundle holds the rest), `failed` (nothing written).
    public var status: Status
    public var seconds: Double
    public var totals: Totals
    /// Every source in the report file (``WarmOptions/reportURL``). In the value
    /// ``WarmPipeline/run()`` returns, only the sources that failed, so memory does not grow with
    /// the manifest.
    public var sources: [SourceReport]
    /// Problems that did not fail a source: the manifest's warnings (duplicate sources, ...) and
    /// each source's (a stale original used after a network error, ...), the latter prefixed
    /// with the source's identifier.
    public var warnings: [String]
    /// Identifiers of sources the previous bundle at the output held and this one does not
    /// (taken out of the manifest, or failed this run), sorted.
    public var removedSources: [String] = []
    /// What the bundle weighs, by format, preset and source, each file counted once: the
    /// published bundle's, or for a run refused by its budget the one it would have published.
    public var payload: BundlePayload?
    /// The manifest's (or `--budget`'s) limit on ``payload``'s bytes, if any.
    public var budget: Int?
    /// `true` when the bundle at the output already held exactly what this run baked, so nothing
    /// was written; absent when a bundle was written or none was.
    public var unchanged: Bool?

    public enum Status: String, Sendable, Codable {
        case ok, partial, failed
    }

    public struct Totals: Sendable, Codable, Equatable {
        public var sources = 0
        public var sourcesOK = 0
        public var sourcesFailed = 0
        public var fetched = 0
        public var revalidated = 0
        public var reusedFromCache = 0
        public var variants = 0
        public var variantsEncoded = 0
        public var variantsReused = 0
        public var bytesDownloaded = 0
        public var bytesIn = 0
        public var bytesOut = 0
        public var blobsRemoved = 0

        public init() {}
    }

    public var failures: [SourceReport] { sources.filter { $0.status == .failed } }
}

/// One source in a ``WarmReport``.
public struct SourceReport: Sendable, Codable {
    /// How the original was obtained, or that the source failed.
    public enum Status: String, Sendable, Codable {
        /// Downloaded in full.
        case fetched
        /// The server answered 304: the cached original is current.
        case revalidated
        /// The cached original was used without asking the server (`--offline`, `--max-age`,
        /// or a network failure during revalidation: see the warning).
        case cached
        /// A local file named by `path:`.
        case local
        case failed
    }

    public var identifier: String
    /// The URL or file the original came from.
    public var location: String
    public var status: Status
    public var bytesDownloaded: Int
    public var originalBytes: Int?
    public var originalSHA256: String?
    public var seconds: Double
    public var variants: [VariantReport]
    /// Why the source failed; present exactly when `status` is `failed`.
    public var failure: SourceFailure?
    /// What went wrong but was survived (for example a failed revalidation, so the cached original
    /// was used). Empty when all went well.
    public var warnings: [String] = []
    /// Where the manifest lists this source (`file:line:column`).
    public var listedAt: String
}

/// Why one source failed, for people (``message``) and for programs (``kind``, ``httpStatus``).
public struct SourceFailure: Sendable, Codable, Equatable, CustomStringConvertible {
    /// A stable name for the kind of failure. Programs branch on it; the raw values are part of
    /// the report's schema (docs/report.md) and never change meaning.
    public enum Kind: String, Sendable, Codable, CaseIterable {
        /// The server answered with an HTTP status that is not an image (``SourceFailure/httpStatus``).
        case httpStatus = "http_status"
        /// The request did not finish within `fetch.timeout`.
        case timeout
        /// No connection could be made, or it broke mid-transfer (refused, unknown host, reset,
        /// TLS, body cut short).
        case connection
        /// The proxy refused the request (wrong or missing credentials) or could not tunnel.
        case proxy
        /// Too many redirects, a redirect loop, or a redirect to a scheme other than http(s).
        case redirect
        /// The server returned something else than an image (an HTML page, JSON, an empty body).
        case notAnImage = "not_an_image"
        /// An image format this libvips cannot read.
        case unsupportedFormat = "unsupported_format"
        /// The image data is truncated or corrupt.
        case corruptImage = "corrupt_image"
        /// Over a limit: `fetch.max_bytes`, or the decoder's pixel or byte limits.
        case tooLarge = "too_large"
        /// Reading or writing a file failed (a local `path:` source, the cache, the bundle).
        case fileSystem = "file_system"
        /// `--offline` and the original was never downloaded.
        case offline
        /// Resizing, a processor or the encoder failed.
        case imaging
        /// The manifest asked for something that cannot be done for this source.
        case invalidRequest = "invalid_request"
    }

    public var kind: Kind
    /// What went wrong and what to do, in one line, without the source's URL or path (the
    /// report and the CLI name the source beside it).
    public var message: String
    /// The server's final status, for ``Kind/httpStatus``.
    public var httpStatus: Int?
    /// Download attempts made, for failures while downloading.
    public var attempts: Int?

    public init(_ kind: Kind, _ message: String, httpStatus: Int? = nil, attempts: Int? = nil) {
        self.kind = kind
        self.message = message
        self.httpStatus = httpStatus
        self.attempts = attempts
    }

    public var description: String { message }
}

