import Foundation

/// How the fetcher downloads remote sources: the manifest's `fetch:` section, with defaults
/// filled in and `${VAR}` references in header values already substituted.
///
/// The defaults written here are the only ones: ``FetcherConfiguration`` (the fetcher's own
/// settings) takes them from ``defaults``, and docs/manifest.md lists them.
///
/// Header values are ``SecretString``s, so printing, dumping or encoding the settings (or a
/// whole ``WarmPlan``) never shows a token.
public struct FetchSettings: Hashable, Sendable, Encodable {
    /// Downloads in flight at once, over all hosts. Manifest: `concurrency`, default 16.
    public var concurrency: Int
    /// Downloads in flight at once to one host. Manifest: `per_host`, default 16, the same as
    /// `concurrency`: most manifests name one CDN, and a lower per-host limit made it the real
    /// limit (6, browsers' number, made a re-warm of 8,000 images over HTTP/1.1 6 % slower).
    /// Lower it for a small origin server.
    public var perHost: Int
    /// Time allowed to establish a connection. Manifest: `connect_timeout`, default 5 s
    /// (never more than ``requestTimeout``). A host that cannot be reached is not retried.
    public var connectTimeout: TimeInterval
    /// Time allowed for one whole request, connecting through the last body byte.
    /// Manifest: `timeout`, default 30 s.
    public var requestTimeout: TimeInterval
    /// Extra attempts after a failed one (connection errors, timeouts, 408, 429, 5xx); 0 tries once.
    /// Manifest: `retries`, default 2.
    public var retries: Int
    /// Wait before the first retry; each later retry waits twice as long as the one before
    /// (a server's `Retry-After` may ask for longer). Manifest: `retry_delay`, default 500 ms.
    public var retryDelay: TimeInterval
    /// Largest response body accepted; larger downloads fail. Manifest: `max_bytes`, default 50 MB.
    public var maxBytes: Int
    /// Redirects followed before giving up; 0 refuses redirects. Manifest: `max_redirects`, default 5.
    public var maxRedirects: Int
    /// The `User-Agent` header. Manifest: `user_agent`, default ``defaultUserAgent``.
    public var userAgent: String
    /// Headers sent to every host, in manifest order. Manifest: `headers`.
    public var headers: [FetchHeader]
    /// Headers sent only to one host (lowercased host name, port excluded), after ``headers``
    /// and replacing a global header of the same name. Manifest: `hosts.<host>.headers`.
    /// Credentials belong here, so a redirect to another host never carries them.
    public var hostHeaders: [String: [FetchHeader]]
    /// The proxies downloads go through: the manifest's `proxy` and `no_proxy`, or else the
    /// `HTTPS_PROXY`, `HTTP_PROXY` and `NO_PROXY` environment variables (``ProxyRoutes``).
    public var proxies: ProxyRoutes = ProxyRoutes()

    public static let defaultUserAgent = "warm-cache/1"

    /// The settings of a manifest without a `fetch` section.
    public static let defaults = FetchSettings()

    public init(concurrency: Int = 16, perHost: Int = 16, connectTimeout: TimeInterval = 5,
                requestTimeout: TimeInterval = 30, retries: Int = 2, retryDelay: TimeInterval = 0.5,
                maxBytes: Int = 50_000_000, maxRedirects: Int = 5, userAgent: String = FetchSettings.defaultUserAgent,
                headers: [FetchHeader] = [], hostHeaders: [String: [FetchHeader]] = [:]) {
        self.concurrency = concurrency
        self.perHost = perHost
        self.connectTimeout = connectTimeout
        self.requestTimeout = requestTimeout
        self.retries = retries
        self.retryDelay = retryDelay
        self.maxBytes = maxBytes
        self.maxRedirects = maxRedirects
        self.userAgent = userAgent
        self.headers = headers
        self.hostHeaders = hostHeaders
    }

    /// The headers for a request to `host`: global ones, with per-host ones added or replacing
    /// those of the same (case-insensitive) name.
    public func headers(forHost host: String) -> [FetchHeader] {
        guard let specific = hostHeaders[host.lowercased()], !specific.isEmpty else { return headers }
        let overridden = Set(specific.map { $0.name.lowercased() })
        return headers.filter { !overridden.contains($0.name.lowercased()) } + specific
    }
}

/// One HTTP request header from the manifest. The value is secret: it prints as `<redacted>`.
public struct FetchHeader: Hashable, Sendable, Encodable, CustomStringConvertible {
    public var name: String
    public var value: SecretString

    public init(name: String, value: SecretString) {
        self.name = name
        self.value = value
    }

    public var description: String { "\(name): \(value)" }
}
