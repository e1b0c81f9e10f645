import Foundation
import Yams
import WarmCache

/// Reading `fetch:` into ``FetchSettings``. Values not written keep the defaults documented on
/// ``FetchSettings``; header values may use `${VAR}` and are kept as ``SecretString``s.
extension ManifestParser {
    /// Headers the fetcher sets itself; writing them in a manifest would break requests.
    static let managedHeaders: [String: String] = [
        "host": "it is derived from each URL",
        "content-length": "requests have no body",
        "transfer-encoding": "requests have no body",
        "connection": "the HTTP client manages connections",
        "user-agent": "use 'fetch.user_agent'",
    ]

    func parseFetch(_ node: Node) -> FetchSettings {
        var settings = FetchSettings()
        guard let fields = reader.mapping(node, what: "'fetch'") else { return settings }
        let known = reader.knownFields(fields, allowed: ManifestKeys.fetch, in: "'fetch'")
        var connectTimeout: TimeInterval?
        var proxy: (server: ProxyServer?, set: Bool) = (nil, false)
        var bypass: [String]?
        for field in known {
            let value = field.value
            let what = "'fetch.\(field.key)'"
            switch field.key {
            case "concurrency":
                reader.integer(value, what: what, in: 1...1024).map { settings.concurrency = $0.value }
            case "per_host":
                reader.integer(value, what: what, in: 1...1024).map { settings.perHost = $0.value }
            case "timeout":
                duration(value, what: what, in: 0.001...86_400).map { settings.requestTimeout = $0 }
            case "connect_timeout":
                connectTimeout = duration(value, what: what, in: 0.001...86_400)
            case "retries":
                reader.integer(value, what: what, in: 0...20).map { settings.retries = $0.value }
            case "retry_delay":
                duration(value, what: what, in: 0...3600).map { settings.retryDelay = $0 }
            case "max_bytes":
                byteSize(value, what: what).map { settings.maxBytes = $0 }
            case "max_redirects":
                reader.integer(value, what: what, in: 0...50).map { settings.maxRedirects = $0.value }
            case "user_agent":
                if let agent = substitutedString(value, what: what), checkHeaderValue(agent, what: what) {
                    settings.userAgent = agent.value
                }
            case "headers":
                settings.headers = parseHeaders(value, what: what)
                warnOfCredentials(in: value)
            case "hosts":
                settings.hostHeaders = parseHosts(value)
            case "proxy":
                proxy = (parseProxy(value), true)
            case "no_proxy":
                bypass = parseBypass(value)
            default:
                break
            }
        }
        settings.connectTimeout = min(connectTimeout ?? settings.connectTimeout, settings.requestTimeout)
        if proxy.set {
            settings.proxies = ProxyRoutes(http: proxy.server, https: proxy.server, bypass: bypass ?? [])
        } else {
            settings.proxies = environmentProxies(at: reader.location(node))
            if let bypass { settings.proxies.bypass = bypass }
        }
        return settings
    }

    /// The proxies of `HTTPS_PROXY`, `HTTP_PROXY` and `NO_PROXY`, used when the manifest sets no
    /// `fetch.proxy`. A malformed variable is an error (reported at `location`, naming the variable,
    /// never its value): ignoring it would send requests past a proxy the user asked for.
    func environmentProxies(at location: ManifestLocation) -> ProxyRoutes {
        do {
            return try ProxyRoutes.fromEnvironment(environment.variables)
        } catch {
            diagnostics.error("\(PlainReason.of(error)) (set in the environment; 'fetch.proxy' in the manifest overrides it)",
                              at: location)
            return ProxyRoutes()
        }
    }

    /// The certificate authorities of `WARM_CACHE_CA_CERTIFICATES` (a PEM file), trusted for `https`
    /// downloads besides the system's: a company's own CA, or a proxy that inspects TLS. A variable
    /// naming a file that cannot be read, or holds no certificate, is an error: ignoring it would
    /// fail every download later with a less helpful reason.
    func environmentCertificates(at location: ManifestLocation) -> String? {
        let name = FetchSettings.extraCertificatesVariable
        guard let path = environment.variables[name]?.trimmingCharacters(in: .whitespaces), !path.isEmpty else {
            return nil
        }
        guard let data = FileManager.default.contents(atPath: path) else {
            diagnostics.error("\(name) names \(path), which cannot be read: point it at a PEM file of "
                              + "certificate authorities, or unset it", at: location)
            return nil
        }
        guard String(decoding: data, as: UTF8.self).contains("-----BEGIN CERTIFICATE-----") else {
            diagnostics.error("\(name) names \(path), which holds no PEM certificate (no "
                              + "'-----BEGIN CERTIFICATE-----' line): point it at the CA's certificate in PEM form",
                              at: location)
            return nil
        }
        return path
    }

    /// `fetch.proxy`: `http://[user:password@]host:port` (`${VAR}` allowed), or `none` for direct
    /// connections whatever the environment says.
    private func parseProxy(_ node: Node) -> ProxyServer? {
        guard let text = substitutedString(node, what: "'fetch.proxy'") else { return nil }
        let value = text.value.trimmingCharacters(in: .whitespaces)
        if value.isEmpty || value.lowercased() == "none" { return nil }
        do {
            return try ProxyServer(parsing: value, from: "'fetch.proxy'")
        } catch {
            diagnostics.error("\(PlainReason.of(error))", at: text.location)
            return nil
        }
    }

    /// `fetch.no_proxy`: a list of hosts (or one comma-separated string) reached directly.
    private func parseBypass(_ node: Node) -> [String] {
        guard let items = reader.list(node, what: "'fetch.no_proxy'") else { return [] }
        return items.flatMap { item in
            reader.string(item, what: "a 'fetch.no_proxy' entry").map { ProxyRoutes.bypassList($0.value) } ?? []
        }
    }

    /// A duration (`30s`, `500ms`, `2m`, a bare number of seconds) within `range` seconds.
    func duration(_ node: Node, what: String, in range: ClosedRange<TimeInterval>) -> TimeInterval? {
        guard let text = reader.string(node, what: what) else { return nil }
        guard let seconds = ManifestDuration.seconds(from: text.value) else {
            diagnostics.error("\(what) must be a duration such as \(ManifestDuration.examples), found"
                              + " '\(text.value)'", at: text.location)
            return nil
        }
        guard range.contains(seconds) else {
            diagnostics.error("\(what) must be between \(ManifestDuration.format(range.lowerBound)) and"
                              + " \(ManifestDuration.format(range.upperBound)), found '\(text.value)'",
                              at: text.location)
            return nil
        }
        return seconds
    }

    /// A byte size (`50MB`, `512KB`, `1GiB`, a bare number of bytes), at least 1 byte.
    func byteSize(_ node: Node, what: String, minimum: Int = 1) -> Int? {
        guard let text = reader.string(node, what: what) else { return nil }
        guard let bytes = ManifestByteSize.bytes(from: text.value) else {
            diagnostics.error("\(what) must be a size such as 512KB, 50MB or 1GiB (a bare number is bytes),"
                              + " found '\(text.value)'", at: text.location)
            return nil
        }
        guard bytes >= minimum else {
            diagnostics.error("\(what) must be at least \(minimum) byte\(minimum == 1 ? "" : "s"), found '\(text.value)'",
                              at: text.location)
            return nil
        }
        return bytes
    }

    private func parseHeaders(_ node: Node, what: String) -> [FetchHeader] {
        guard let fields = reader.mapping(node, what: what) else { return [] }
        var headers: [FetchHeader] = []
        var seen: [String: ManifestLocation] = [:]
        for field in fields {
            let lowered = field.key.lowercased()
            if !Self.isHeaderName(field.key) {
                diagnostics.error("'\(field.key)' is not a valid HTTP header name", at: field.keyLocation)
                continue
            }
            if let reason = Self.managedHeaders[lowered] {
                diagnostics.error("header '\(field.key)' cannot be set here: \(reason)", at: field.keyLocation)
                continue
            }
            if let first = seen[lowered] {
                diagnostics.error("header '\(field.key)' is set twice (header names ignore case)",
                                  at: field.keyLocation, notes: [("first set here", first)])
                continue
            }
            seen[lowered] = field.keyLocation
            let headerWhat = "header '\(field.key)'"
            guard let value = substitutedString(field.value, what: headerWhat),
                  checkHeaderValue(value, what: headerWhat) else { continue }
            headers.append(FetchHeader(name: field.key, value: SecretString(value.value)))
        }
        return headers
    }

    /// Headers that carry credentials: in `fetch.headers` they go to every host the manifest names.
    static let credentialHeaders: Set = ["authorization", "cookie"]

    /// Warns of a credential header in `fetch.headers`, where every host receives it.
    private func warnOfCredentials(in node: Node) {
        guard node.mapping != nil else { return }  // parseHeaders said what is wrong with it
        for field in reader.mapping(node, what: "'headers'") ?? [] where Self.credentialHeaders.contains(field.key.lowercased()) {
            diagnostics.warning("'\(field.key)' in fetch.headers is sent to every host; put credentials under "
                                + "fetch.hosts.<host>.headers, which go to that host only", at: field.keyLocation)
        }
    }

    private func parseHosts(_ node: Node) -> [String: [FetchHeader]] {
        guard let fields = reader.mapping(node, what: "'fetch.hosts'") else { return [:] }
        var result: [String: [FetchHeader]] = [:]
        for field in fields {
            let host = field.key.lowercased()
            guard !host.isEmpty, !host.contains("/"), !host.contains(":"), !host.contains(" ") else {
                diagnostics.error("'fetch.hosts' keys are host names such as 'cdn.example.com' (no scheme, port"
                                  + " or path), found '\(field.key)'", at: field.keyLocation)
                continue
            }
            guard result[host] == nil else {
                diagnostics.error("host '\(field.key)' is listed twice in 'fetch.hosts' (host names ignore case)",
                                  at: field.keyLocation)
                continue
            }
            let context = "'fetch.hosts.\(field.key)'"
            guard let hostFields = reader.mapping(field.value, what: context) else { continue }
            result[host] = []
            for hostField in reader.knownFields(hostFields, allowed: ManifestKeys.fetchHost, in: context) {
                result[host] = parseHeaders(hostField.value, what: "\(context).headers")
            }
        }
        return result.filter { !$0.value.isEmpty }
    }

    /// Rejects control characters (a line break would inject headers). Never echoes the value.
    private func checkHeaderValue(_ value: Located<String>, what: String) -> Bool {
        guard value.value.unicodeScalars.contains(where: { $0.value < 0x20 && $0 != "\t" || $0.value == 0x7F })
        else { return true }
        diagnostics.error("\(what) contains a line break or control character", at: value.location)
        return false
    }

    /// RFC 9110 token characters.
    static func isHeaderName(_ name: String) -> Bool {
        !name.isEmpty && name.unicodeScalars.allSatisfy { scalar in
            scalar.isASCII && (scalar.properties.isAlphabetic || ("0"..."9").contains(scalar)
                || "!#$%&'*+-.^_`|~".unicodeScalars.contains(scalar))
        }
    }
}
