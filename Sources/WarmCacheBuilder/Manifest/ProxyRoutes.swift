import Foundation

/// Which HTTP proxy, if any, a download goes through.
///
/// Built from the manifest's `fetch.proxy` and `fetch.no_proxy` or, when the manifest sets no
/// proxy, from the conventional environment variables, read as curl reads them:
///
/// - `HTTPS_PROXY` (or `https_proxy`) for `https` URLs, `HTTP_PROXY` (or `http_proxy`) for
///   `http` URLs; a value without a scheme means `http://`. Credentials go in the URL
///   (`http://user:password@proxy:3128`, percent-encoded) and are sent as `Proxy-Authorization`;
///   they print as `<redacted>`.
/// - `NO_PROXY` (or `no_proxy`): comma-separated hosts reached directly. `example.com` (or
///   `.example.com`) also covers its subdomains; `host:port` only that port; IP addresses match
///   exactly; `*` turns every proxy off.
///
/// Every request, `http` ones included, is tunnelled through the proxy with `CONNECT`, so the
/// proxy must allow `CONNECT` to the image servers' ports.
public struct ProxyRoutes: Sendable, Hashable, Encodable, CustomStringConvertible {
    /// The proxy for `http://` URLs.
    public var http: ProxyServer?
    /// The proxy for `https://` URLs.
    public var https: ProxyServer?
    /// Hosts reached directly (the `NO_PROXY` list, lowercased, leading dots removed).
    public var bypass: [String]

    public init(http: ProxyServer? = nil, https: ProxyServer? = nil, bypass: [String] = []) {
        self.http = http
        self.https = https
        self.bypass = bypass
    }

    /// The proxy a request to `url` goes through, or `nil` for a direct connection.
    public func proxy(for url: URL) -> ProxyServer? {
        let proxy: ProxyServer?
        switch url.scheme?.lowercased() {
        case "https": proxy = https
        case "http": proxy = http
        default: proxy = nil
        }
        guard let proxy, let host = url.host?.lowercased() else { return nil }
        let port = url.port ?? (url.scheme?.lowercased() == "https" ? 443 : 80)
        return bypasses(host: host, port: port) ? nil : proxy
    }

    /// Whether `NO_PROXY` sends `host:port` directly.
    func bypasses(host: String, port: Int) -> Bool {
        let host = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
        for entry in bypass {
            if entry == "*" { return true }
            var name = entry
            if let colon = entry.lastIndex(of: ":"), !entry.hasSuffix("]"), entry.filter({ $0 == ":" }).count == 1 {
                guard Int(entry[entry.index(after: colon)...]) == port else { continue }
                name = String(entry[..<colon])
            }
            if name.hasPrefix("[") && name.hasSuffix("]") { name = String(name.dropFirst().dropLast()) }
            if host == name || host.hasSuffix("." + name) { return true }
        }
        return false
    }

    /// The routes the environment asks for. `nil` values and empty strings mean no proxy.
    /// - Throws: ``ProxyServer/ParseError`` naming the variable (never its value).
    public static func fromEnvironment(_ environment: [String: String]) throws(ProxyServer.ParseError) -> ProxyRoutes {
        func value(_ name: String) -> (name: String, value: String)? {
            for candidate in [name, name.lowercased()] {
                if let value = environment[candidate]?.trimmingCharacters(in: .whitespaces), !value.isEmpty {
                    return (candidate, value)
                }
            }
            return nil
        }
        var routes = ProxyRoutes()
        if let https = value("HTTPS_PROXY") { routes.https = try ProxyServer(parsing: https.value, from: https.name) }
        if let http = value("HTTP_PROXY") { routes.http = try ProxyServer(parsing: http.value, from: http.name) }
        if let noProxy = value("NO_PROXY") { routes.bypass = bypassList(noProxy.value) }
        return routes
    }

    /// A `NO_PROXY`-style list (commas or spaces between entries), normalised.
    public static func bypassList(_ text: String) -> [String] {
        text.split(whereSeparator: { $0 == "," || $0 == " " }).map { entry in
            var name = entry.trimmingCharacters(in: .whitespaces).lowercased()
            while name.hasPrefix(".") || name.hasPrefix("*.") { name.removeFirst(name.hasPrefix("*.") ? 2 : 1) }
            return name
        }.filter { !$0.isEmpty }
    }

    public var isEmpty: Bool { http == nil && https == nil }

    public var description: String {
        guard !isEmpty else { return "none" }
        var parts: [String] = []
        if let http { parts.append("http via \(http)") }
        if let https { parts.append("https via \(https)") }
        if !bypass.isEmpty { parts.append("direct to \(bypass.joined(separator: ","))") }
        return parts.joined(separator: "; ")
    }
}

/// One HTTP proxy: where it listens and, optionally, the credentials it wants.
public struct ProxyServer: Sendable, Hashable, Encodable, CustomStringConvertible {
    public var host: String
    public var port: Int
    /// Sent as `Proxy-Authorization: Basic …`; never printed.
    public var username: SecretString?
    public var password: SecretString?

    public init(host: String, port: Int, username: SecretString? = nil, password: SecretString? = nil) {
        self.host = host
        self.port = port
        self.username = username
        self.password = password
    }

    /// A proxy address that cannot be used, named by where it came from (an environment
    /// variable or the manifest key); the value itself is not quoted, as it may hold a password.
    public struct ParseError: Error, Sendable, CustomStringConvertible {
        public var origin: String
        public var reason: String
        public var description: String {
            "\(origin) is not a usable proxy address: \(reason); write it as http://host:port "
                + "(with user:password@ before the host if the proxy needs credentials)"
        }
    }

    /// Parses `http://user:password@host:port`, `host:port` or `http://host` (port 80).
    public init(parsing text: String, from origin: String) throws(ParseError) {
        let withScheme = text.contains("://") ? text : "http://" + text
        guard let components = URLComponents(string: withScheme) else {
            throw ParseError(origin: origin, reason: "it is not a URL")
        }
        let scheme = components.scheme?.lowercased() ?? ""
        guard scheme == "http" else {
            throw ParseError(origin: origin, reason: scheme == "https" || scheme.hasPrefix("socks")
                ? "only plain http:// proxies are supported (not \(scheme)://)" : "the scheme is not http")
        }
        guard let host = components.host, !host.isEmpty else {
            throw ParseError(origin: origin, reason: "it names no host")
        }
        self.host = host.hasPrefix("[") ? String(host.dropFirst().dropLast()) : host
        port = components.port ?? 80
        username = components.percentEncodedUser.map { SecretString($0.removingPercentEncoding ?? $0) }
        password = components.percentEncodedPassword.map { SecretString($0.removingPercentEncoding ?? $0) }
    }

    public var description: String {
        (username == nil ? "" : "<redacted>@") + "\(host):\(port)"
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }
}
