import Foundation

/// The concrete response for one request: a route resolved against the request's
/// headers and its position in the path's request sequence.
struct ResponsePlan: Sendable {
    var status: Int
    var headers: [(name: String, value: String)]
    var body: [UInt8]
    /// Seconds to wait before sending the head.
    var headerDelay: TimeInterval = 0
    /// The head waits until this gate is open too.
    var gate: FixtureGate?
    /// Send the body in pieces of this size, this many seconds apart.
    var trickle: (chunkSize: Int, interval: TimeInterval)?
    /// Send only this many body bytes, then close the connection.
    var truncateAfter: Int?
    /// Repeat `body` for ever (chunked), until the client goes away.
    var endless = false

    /// What the resolver needs to know about the request.
    struct Request: Sendable {
        var path: String
        var headers: [(name: String, value: String)]

        func header(_ name: String) -> String? {
            headers.first { $0.name.caseInsensitiveCompare(name) == .orderedSame }?.value
        }
    }

    /// Resolves `route` (registered at `routePath`) for the `index`-th request (0-based)
    /// to that path. May read a file from disk (directory routes): call it off the event loop.
    static func resolve(_ route: FixtureRoute, routePath: String, request: Request, index: Int) -> ResponsePlan {
        switch route {
        case .resource(let resource):
            return serve(resource, request: request)
        case .response(let status, let headers, let body):
            return ResponsePlan(status: status, headers: headers + [("Content-Length", "\(body.count)")], body: body)
        case .redirect(let status, let location):
            return ResponsePlan(status: status, headers: [("Location", location), ("Content-Length", "0")], body: [])
        case .sequence(let routes):
            guard let last = routes.last else { return plain(500, "empty route sequence") }
            let step = index < routes.count ? routes[index] : last
            return resolve(step, routePath: routePath, request: request, index: index)
        case .delayed(let seconds, let inner):
            var plan = resolve(inner, routePath: routePath, request: request, index: index)
            plan.headerDelay += seconds
            return plan
        case .held(let gate, let inner):
            var plan = resolve(inner, routePath: routePath, request: request, index: index)
            plan.gate = gate
            return plan
        case .trickled(let chunkSize, let interval, let inner):
            var plan = resolve(inner, routePath: routePath, request: request, index: index)
            plan.trickle = (max(1, chunkSize), interval)
            return plan
        case .truncated(let afterBytes, let inner):
            var plan = resolve(inner, routePath: routePath, request: request, index: index)
            plan.truncateAfter = max(0, afterBytes)
            return plan
        case .chunked(let inner):
            var plan = resolve(inner, routePath: routePath, request: request, index: index)
            plan.headers.removeAll { $0.name.caseInsensitiveCompare("Content-Length") == .orderedSame }
            return plan
        case .directory(let root):
            return serveFile(under: root, relativePath: String(request.path.dropFirst(routePath.count)), request: request)
        case .endless(let contentType):
            var plan = ResponsePlan(status: 200, headers: [("Content-Type", contentType)],
                                    body: Array(repeating: UInt8(ascii: "A"), count: 16_384))
            plan.endless = true
            return plan
        }
    }

    /// A static resource, or `304` when the request's validators still match it.
    private static func serve(_ resource: FixtureResource, request: Request) -> ResponsePlan {
        var validators: [(name: String, value: String)] = []
        if let etag = resource.etag { validators.append(("ETag", etag)) }
        if let date = resource.lastModified { validators.append(("Last-Modified", HTTPDateFormat.string(from: date))) }

        if isNotModified(resource, request: request) {
            return ResponsePlan(status: 304, headers: validators, body: [])
        }
        var headers = validators + [("Content-Length", "\(resource.body.count)")]
        if let type = resource.contentType { headers.append(("Content-Type", type)) }
        return ResponsePlan(status: 200, headers: headers, body: resource.body)
    }

    /// RFC 9110 §13.2.2: `If-None-Match` decides when present (weak comparison);
    /// `If-Modified-Since` is only consulted without it.
    private static func isNotModified(_ resource: FixtureResource, request: Request) -> Bool {
        if let condition = request.header("If-None-Match") {
            guard let etag = resource.etag else { return false }
            let candidates = condition.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
            return candidates.contains { $0 == "*" || weak($0) == weak(etag) }
        }
        if let condition = request.header("If-Modified-Since"),
           let since = HTTPDateFormat.date(from: condition),
           let modified = resource.lastModified {
            return modified.timeIntervalSince1970.rounded(.down) <= since.timeIntervalSince1970
        }
        return false
    }

    private static func weak(_ tag: String) -> String {
        tag.hasPrefix("W/") ? String(tag.dropFirst(2)) : tag
    }

    /// A file below `root`, refusing anything that would escape it.
    private static func serveFile(under root: URL, relativePath: String, request: Request) -> ResponsePlan {
        guard let decoded = relativePath.removingPercentEncoding else { return plain(404, "not found") }
        let components = decoded.split(separator: "/", omittingEmptySubsequences: false)
        guard !components.contains(where: { $0.isEmpty || $0 == "." || $0 == ".." }) else {
            return plain(404, "not found")
        }
        let file = root.appendingPathComponent(decoded)
        guard let attributes = try? FileManager.default.attributesOfItem(atPath: file.path),
              attributes[.type] as? FileAttributeType == .typeRegular,
              let body = FileManager.default.contents(atPath: file.path)
        else {
            return plain(404, "not found")
        }
        let modified = (attributes[.modificationDate] as? Date) ?? Date(timeIntervalSince1970: 0)
        let etag = "\"\(body.count)-\(Int(modified.timeIntervalSince1970))\""
        let resource = FixtureResource(
            body: Array(body), contentType: contentType(forExtension: file.pathExtension), etag: etag, lastModified: modified)
        return serve(resource, request: request)
    }

    static func plain(_ status: Int, _ text: String) -> ResponsePlan {
        let body = Array(text.utf8)
        return ResponsePlan(
            status: status, headers: [("Content-Type", "text/plain"), ("Content-Length", "\(body.count)")], body: body)
    }

    private static func contentType(forExtension ext: String) -> String {
        switch ext.lowercased() {
        case "jpg", "jpeg": return "image/jpeg"
        case "png": return "image/png"
        case "gif": return "image/gif"
        case "webp": return "image/webp"
        case "avif": return "image/avif"
        case "heic", "heif": return "image/heic"
        case "jxl": return "image/jxl"
        case "tif", "tiff": return "image/tiff"
        case "bmp": return "image/bmp"
        case "svg": return "image/svg+xml"
        case "html", "htm": return "text/html"
        default: return "application/octet-stream"
        }
    }
}

/// IMF-fixdate formatting and parsing, as used by `Last-Modified`, `If-Modified-Since`
/// and `Retry-After`.
public enum HTTPDateFormat {
    private static func formatter() -> DateFormatter {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        return formatter
    }

    /// `Sun, 06 Nov 1994 08:49:37 GMT`. Formatted by hand from `gmtime_r`: every response's
    /// `Date` header goes through here, and a `DateFormatter` per response would slow the
    /// benchmarks' servers.
    public static func string(from date: Date) -> String {
        var seconds = time_t(date.timeIntervalSince1970.rounded(.down))
        var parts = tm()
        guard gmtime_r(&seconds, &parts) != nil else { return formatter().string(from: date) }
        let days = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
        let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        func two(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
        return "\(days[Int(parts.tm_wday)]), \(two(parts.tm_mday)) \(months[Int(parts.tm_mon)]) \(parts.tm_year + 1900) "
            + "\(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec)) GMT"
    }

    public static func date(from text: String) -> Date? {
        formatter().date(from: text)
    }
}
