import Foundation

/// Everything ``ImageFetcher`` can be tuned with.
///
/// ``init(_:)`` maps the manifest's ``FetchSettings`` onto this type; the fetcher itself knows
/// nothing about manifests. The defaults are ``FetchSettings``'s, so a fetcher made in code and
/// one made from an empty manifest behave the same. All durations are in seconds
/// (`TimeInterval`), because `Duration` needs macOS 13 and the package supports macOS 12.
///
/// Out-of-range values are clamped rather than rejected (a concurrency of 0 becomes 1,
/// a negative retry count becomes 0), so a fetcher is always usable.
public struct FetcherConfiguration: Sendable {
    /// Maximum number of HTTP requests in flight at once, across all hosts.
    public var concurrency: Int
    /// Maximum number of HTTP requests in flight to one host (`host:port`). Also the size
    /// of the HTTP/1.1 connection pool per host, so connections are reused, not multiplied.
    public var perHost: Int
    /// Time allowed to establish a TCP (and TLS) connection. A host that refuses connections,
    /// has no route, no DNS name or no answer within this time is not retried: see ``retries``.
    public var connectTimeout: TimeInterval
    /// Deadline for one whole attempt: connecting, every redirect hop, the response head
    /// and the complete body. A server that trickles bytes forever still times out.
    public var requestTimeout: TimeInterval
    /// How many times a failed attempt is retried (so `retries + 1` attempts at most).
    /// Only transient failures are retried: dropped connections, timeouts, truncated
    /// bodies, HTTP 5xx, 408 and 429. Other 4xx answers, wrong content and limits are final,
    /// and so is a host that has not answered in this run and refuses connections, has no
    /// route, no DNS name, no answer within ``connectTimeout``, or accepts the connection but
    /// sends no response within ``requestTimeout``: it is written off, and its other downloads
    /// in the run fail at once instead of each waiting out its own timeouts. (Timeouts on a host
    /// that has answered before are retried.)
    public var retries: Int
    /// Base delay of the exponential backoff: retry `n` waits a random time between 0 and
    /// `min(maxBackoff, backoffBase * 2^(n-1))` ("full jitter"), so many clients failing
    /// together do not come back in lockstep.
    public var backoffBase: TimeInterval
    /// Upper bound of a single backoff delay.
    public var maxBackoff: TimeInterval
    /// Upper bound on a server's `Retry-After` request; a longer wait is shortened to this.
    public var maxRetryAfter: TimeInterval
    /// Largest body accepted, in bytes. Checked against `Content-Length` before the body
    /// is read, and again while streaming (for chunked or lying responses).
    public var maxBytes: Int
    /// Maximum number of redirects followed in one attempt.
    public var maxRedirects: Int
    /// Extra request headers (for example an `Authorization` token for a private CDN).
    /// Their values are secrets: they are never logged and ``description`` redacts them.
    /// They are sent to the URL's own origin only and dropped when a redirect leads to
    /// another scheme, host or port (as curl does without `--location-trusted`).
    public var headers: [(name: String, value: String)]
    /// Headers for one host only (lowercased host name), added to ``headers`` or replacing
    /// those of the same name. Sent under the same same-origin rule.
    public var hostHeaders: [String: [(name: String, value: String)]] = [:]
    /// The `User-Agent` sent with every request, unless `headers` sets its own.
    public var userAgent: String
    /// The HTTP proxies to go through, and the hosts reached directly. Default: none.
    public var proxies: ProxyRoutes = ProxyRoutes()

    public init(
        concurrency: Int = FetchSettings.defaults.concurrency,
        perHost: Int = FetchSettings.defaults.perHost,
        connectTimeout: TimeInterval = FetchSettings.defaults.connectTimeout,
        requestTimeout: TimeInterval = FetchSettings.defaults.requestTimeout,
        retries: Int = FetchSettings.defaults.retries,
        backoffBase: TimeInterval = FetchSettings.defaults.retryDelay,
        maxBackoff: TimeInterval = 8,
        maxRetryAfter: TimeInterval = 60,
        maxBytes: Int = FetchSettings.defaults.maxBytes,
        maxRedirects: Int = FetchSettings.defaults.maxRedirects,
        headers: [(name: String, value: String)] = [],
        userAgent: String = FetchSettings.defaults.userAgent
    ) {
        self.concurrency = concurrency
        self.perHost = perHost
        self.connectTimeout = connectTimeout
        self.requestTimeout = requestTimeout
        self.retries = retries
        self.backoffBase = backoffBase
        self.maxBackoff = maxBackoff
        self.maxRetryAfter = maxRetryAfter
        self.maxBytes = maxBytes
        self.maxRedirects = maxRedirects
        self.headers = headers
        self.userAgent = userAgent
    }

    /// The manifest's `fetch` settings, with `concurrency` overridden when given (`--concurrency`).
    public init(_ settings: FetchSettings, concurrency: Int? = nil) {
        self.init(
            concurrency: concurrency ?? settings.concurrency, perHost: settings.perHost,
            connectTimeout: settings.connectTimeout, requestTimeout: settings.requestTimeout,
            retries: settings.retries, backoffBase: settings.retryDelay, maxBytes: settings.maxBytes,
            maxRedirects: settings.maxRedirects,
            headers: settings.headers.map { ($0.name, $0.value.unredactedValue) },
            userAgent: settings.userAgent)
        hostHeaders = settings.hostHeaders.mapValues { headers in
            headers.map { ($0.name, $0.value.unredactedValue) }
        }
        proxies = settings.proxies
    }

    /// The same configuration with every value forced into a usable range.
    var clamped: FetcherConfiguration {
        var copy = self
        copy.concurrency = max(1, concurrency)
        copy.perHost = max(1, min(perHost, copy.concurrency))
        copy.connectTimeout = max(0.001, connectTimeout)
        copy.requestTimeout = max(0.001, requestTimeout)
        copy.retries = max(0, retries)
        copy.backoffBase = max(0, backoffBase)
        copy.maxBackoff = max(0, maxBackoff)
        copy.maxRetryAfter = max(0, maxRetryAfter)
        copy.maxBytes = max(0, maxBytes)
        copy.maxRedirects = max(0, maxRedirects)
        return copy
    }

    /// The name of the first configured header that cannot be sent: a name that is not an
    /// HTTP token, or a value with control characters (a line break would let one header
    /// smuggle in others).
    var firstInvalidHeaderName: String? {
        let tokenPunctuation = Set("!#$%&'*+-.^_`|~")
        func isTokenCharacter(_ character: Character) -> Bool {
            character.isASCII && (character.isLetter || character.isNumber || tokenPunctuation.contains(character))
        }
        for header in headers + hostHeaders.keys.sorted().flatMap({ hostHeaders[$0] ?? [] }) {
            let nameIsValid = !header.name.isEmpty && header.name.allSatisfy(isTokenCharacter)
            let valueIsValid = header.value.unicodeScalars.allSatisfy { $0 == "\t" || ($0.value >= 0x20 && $0.value != 0x7F) }
            if !nameIsValid || !valueIsValid { return header.name }
        }
        return nil
    }

    /// The configured header values, for scrubbing them out of error text.
    var secretHeaderValues: [String] {
        (headers + hostHeaders.values.flatMap { $0 }).map(\.value).filter { !$0.isEmpty }
    }

    /// The headers sent to `host`: the global ones, with that host's own added or replacing
    /// those of the same (case-insensitive) name.
    func headers(forHost host: String?) -> [(name: String, value: String)] {
        guard !hostHeaders.isEmpty, let host, let specific = hostHeaders[host.lowercased()], !specific.isEmpty else {
            return headers
        }
        let overridden = Set(specific.map { $0.name.lowercased() })
        return headers.filter { !overridden.contains($0.name.lowercased()) } + specific
    }
}

extension FetcherConfiguration: CustomStringConvertible {
    /// A one-line summary for logs and `--verbose` output. Header values are replaced by
    /// `<redacted>`; only their names are shown.
    public var description: String {
        let headerList = (headers + hostHeaders.values.flatMap { $0 }).map { "\($0.name): <redacted>" }
            .joined(separator: ", ")
        return "FetcherConfiguration(concurrency: \(concurrency), perHost: \(perHost), "
            + "connectTimeout: \(connectTimeout)s, requestTimeout: \(requestTimeout)s, "
            + "retries: \(retries), backoffBase: \(backoffBase)s, maxBackoff: \(maxBackoff)s, "
            + "maxRetryAfter: \(maxRetryAfter)s, maxBytes: \(maxBytes), maxRedirects: \(maxRedirects), "
            + "headers: [\(headerList)], userAgent: \(userAgent), proxies: \(proxies))"
    }
}

extension FetcherConfiguration: CustomDebugStringConvertible {
    /// Same as ``description``: debug output must not leak header values either.
    public var debugDescription: String { description }
}

extension FetcherConfiguration: CustomReflectable {
    /// `dump(configuration)` and debuggers see the redacted summary, not the header values.
    public var customMirror: Mirror {
        Mirror(self, children: ["summary": description], displayStyle: .struct)
    }
}
