import Foundation

/// How ``ImageFetcher`` downloads remote sources: the manifest's `fetch:` section, with defaults
/// filled in and `${VAR}` references in header values already substituted, or settings made in
/// code (the fetcher knows nothing about manifests).
///
/// The defaults written here are the only ones (docs/manifest.md lists them), so a fetcher made
/// in code and one made from an empty manifest behave the same. All durations are in seconds
/// (`TimeInterval`), because `Duration` needs macOS 13 and the package supports macOS 12.
/// Out-of-range values are clamped when a fetcher is made rather than rejected (a concurrency
/// of 0 becomes 1, a negative retry count 0), so a fetcher is always usable.
///
/// Header values are ``SecretString``s, so printing, dumping or encoding the settings (or a
/// whole ``WarmPlan``) never shows a token.
public struct FetchSettings: Hashable, Sendable, Encodable {
    /// Downloads in flight at once, over all hosts. Manifest: `concurrency`, default 16.
    public var concurrency: Int
    /// Downloads in flight at once to one host (`host:port`), and the size of the HTTP/1.1
    /// connection pool per host, so connections are reused, not multiplied. Manifest:
    /// `per_host`, default 16, the same as `concurrency`: most manifests name one CDN, and a
    /// lower per-host limit made it the real limit (6, browsers' number, made a re-warm of
    /// 8,000 images over HTTP/1.1 6 % slower). Lower it for a small origin server.
    public var perHost: Int
    /// Time allowed to establish a TCP (and TLS) connection. Manifest: `connect_timeout`,
    /// default 5 s (never more than ``requestTimeout``). A host that refuses connections, has no
    /// route, no DNS name or no answer within this time is not retried: see ``retries``.
    public var connectTimeout: TimeInterval
    /// Deadline for one whole attempt: connecting, every redirect hop, the response head and the
    /// complete body (a server that trickles bytes forever still times out). Manifest: `timeout`,
    /// default 30 s.
    public var requestTimeout: TimeInterval
    /// Extra attempts after a failed one (so `retries + 1` attempts at most); 0 tries once.
    /// Manifest: `retries`, default 2.
    ///
    /// Only transient failures are retried: dropped connections, timeouts, truncated bodies,
    /// HTTP 5xx, 408 and 429. Other 4xx answers, wrong content and limits are final, and so is a
    /// host that has not answered in this run and refuses connections, has no route, no DNS
    /// name, no answer within ``connectTimeout``, or accepts the connection but sends no response
    /// within ``requestTimeout``: it is written off, and its other downloads in the run fail at
    /// once instead of each waiting out its own timeouts. (Timeouts and refused connections on a
    /// host that has answered before are retried: a server restarting mid-run.)
    public var retries: Int
    /// Base delay of the exponential backoff. Manifest: `retry_delay`, default 500 ms. Retry `n`
    /// waits a random time between 0 and `min(maxBackoff, retryDelay * 2^(n-1))` ("full jitter"),
    /// so many clients failing together do not come back in lockstep; a server's `Retry-After`
    /// may ask for longer (up to ``maxRetryAfter``).
    public var retryDelay: TimeInterval
    /// Upper bound of a single backoff delay. Not a manifest setting; default 8 s.
    public var maxBackoff: TimeInterval
    /// Upper bound on a server's `Retry-After` request; a longer wait is shortened to this.
    /// Not a manifest setting; default 60 s.
    public var maxRetryAfter: TimeInterval
    /// Largest response body accepted, in bytes; larger downloads fail. Checked against
    /// `Content-Length` before the body is read, and again while streaming (for chunked or lying
    /// responses). Manifest: `max_bytes`, default 50 MB.
    public var maxBytes: Int
    /// Redirects followed in one attempt before giving up; 0 refuses redirects.
    /// Manifest: `max_redirects`, default 5.
    public var maxRedirects: Int
    /// The `User-Agent` sent with every request, unless a header sets its own.
    /// Manifest: `user_agent`, default ``defaultUserAgent``.
    public var userAgent: String
    /// Headers sent to every host, in manifest order (for example an `Authorization` token for a
    /// private CDN). Manifest: `headers`. They are sent to the URL's own origin only and dropped
    /// when a redirect leads to another scheme, host or port (as curl does without
    /// `--location-trusted`).
    public var headers: [FetchHeader]
    /// Headers sent only to one host (lowercased host name, port excluded), after ``headers``
    /// and replacing a global header of the same name, under the same same-origin rule.
    /// Manifest: `hosts.<host>.headers`. Credentials belong here, so a redirect to another host
    /// never carries them.
    public var hostHeaders: [String: [FetchHeader]]
    /// The proxies downloads go through, and the hosts reached directly: the manifest's `proxy`
    /// and `no_proxy`, or else the `HTTPS_PROXY`, `HTTP_PROXY` and `NO_PROXY` environment
    /// variables (``ProxyRoutes``). Default: none.
    public var proxies: ProxyRoutes = ProxyRoutes()
    /// A PEM file of certificate authorities trusted for `https` besides the system's, from the
    /// `WARM_CACHE_CA_CERTIFICATES` environment variable (``extraCertificatesVariable``). On Apple
    /// platforms the system still checks each certificate, with these as extra anchors. Default: none.
    public var extraCertificates: String?
    /// The environment variable that names ``extraCertificates``.
    public static let extraCertificatesVariable = "WARM_CACHE_CA_CERTIFICATES"

    public static let defaultUserAgent = "warm-cache/1"

    /// The settings of a manifest without a `fetch` section.
    public static let defaults = FetchSettings()

    public init(concurrency: Int = 16, perHost: Int = 16, connectTimeout: TimeInterval = 5,
                requestTimeout: TimeInterval = 30, retries: Int = 2, retryDelay: TimeInterval = 0.5,
                maxBackoff: TimeInterval = 8, maxRetryAfter: TimeInterval = 60,
                maxBytes: Int = 50_000_000, maxRedirects: Int = 5, userAgent: String = FetchSettings.defaultUserAgent,
                headers: [FetchHeader] = [], hostHeaders: [String: [FetchHeader]] = [:]) {
        self.concurrency = concurrency
        self.perHost = perHost
        self.connectTimeout = connectTimeout
        self.requestTimeout = requestTimeout
        self.retries = retries
        self.retryDelay = retryDelay
        self.maxBackoff = maxBackoff
        self.maxRetryAfter = maxRetryAfter
        self.maxBytes = maxBytes
        self.maxRedirects = maxRedirects
        self.userAgent = userAgent
        self.headers = headers
        self.hostHeaders = hostHeaders
    }

    /// The headers for a request to `host`: global ones, with per-host ones added or replacing
    /// those of the same (case-insensitive) name.
    public func headers(forHost host: String) -> [FetchHeader] {
        guard !hostHeaders.isEmpty, let specific = hostHeaders[host.lowercased()], !specific.isEmpty else {
            return headers
        }
        let overridden = Set(specific.map { $0.name.lowercased() })
        return headers.filter { !overridden.contains($0.name.lowercased()) } + specific
    }

    /// The same settings with `concurrency` replaced when one is given (`--concurrency`).
    func overriding(concurrency: Int?) -> FetchSettings {
        var copy = self
        if let concurrency { copy.concurrency = concurrency }
        return copy
    }

    /// The same settings with every value forced into a usable range.
    var clamped: FetchSettings {
        var copy = self
        copy.concurrency = max(1, concurrency)
        copy.perHost = max(1, min(perHost, copy.concurrency))
        copy.connectTimeout = max(0.001, connectTimeout)
        copy.requestTimeout = max(0.001, requestTimeout)
        copy.retries = max(0, retries)
        copy.retryDelay = max(0, retryDelay)
        copy.maxBackoff = max(0, maxBackoff)
        copy.maxRetryAfter = max(0, maxRetryAfter)
        copy.maxBytes = max(0, maxBytes)
        copy.maxRedirects = max(0, maxRedirects)
        return copy
    }

    /// The name of the first header that cannot be sent: a name that is not an HTTP token, or a
    /// value with control characters (a line break would let one header smuggle in others).
    var firstInvalidHeaderName: String? {
        let tokenPunctuation = Set("!#$%&'*+-.^_`|~")
        func isTokenCharacter(_ character: Character) -> Bool {
            character.isASCII && (character.isLetter || character.isNumber || tokenPunctuation.contains(character))
        }
        for header in headers + hostHeaders.keys.sorted().flatMap({ hostHeaders[$0] ?? [] }) {
            let nameIsValid = !header.name.isEmpty && header.name.allSatisfy(isTokenCharacter)
            let valueIsValid = header.value.unredactedValue.unicodeScalars
                .allSatisfy { $0 == "\t" || ($0.value >= 0x20 && $0.value != 0x7F) }
            if !nameIsValid || !valueIsValid { return header.name }
        }
        return nil
    }

    /// The header values, for scrubbing them out of error text.
    var secretHeaderValues: [String] {
        (headers + hostHeaders.values.flatMap { $0 }).map(\.value.unredactedValue).filter { !$0.isEmpty }
    }

    /// What `plan --json` shows: the manifest's settings (the backoff bounds are not among them).
    private enum CodingKeys: String, CodingKey {
        case concurrency, perHost, connectTimeout, requestTimeout, retries, retryDelay, maxBytes, maxRedirects
        case userAgent, headers, hostHeaders, proxies
    }
}

extension FetchSettings: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// A one-line summary for logs and `--verbose` output. Header values are replaced by
    /// `<redacted>`; only their names are shown.
    public var description: String {
        let headerList = (headers + hostHeaders.keys.sorted().flatMap { hostHeaders[$0] ?? [] })
            .map(\.description).joined(separator: ", ")
        return "FetchSettings(concurrency: \(concurrency), perHost: \(perHost), "
            + "connectTimeout: \(connectTimeout)s, requestTimeout: \(requestTimeout)s, "
            + "retries: \(retries), retryDelay: \(retryDelay)s, maxBackoff: \(maxBackoff)s, "
            + "maxRetryAfter: \(maxRetryAfter)s, maxBytes: \(maxBytes), maxRedirects: \(maxRedirects), "
            + "headers: [\(headerList)], userAgent: \(userAgent), proxies: \(proxies))"
    }

    /// Same as ``description``: debug output must not leak header values either.
    public var debugDescription: String { description }

    /// `dump(settings)` and debuggers see the redacted summary, not the header values.
    public var customMirror: Mirror {
        Mirror(self, children: ["summary": description], displayStyle: .struct)
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
