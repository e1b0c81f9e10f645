/// The identity of a source image in a bundle: a normalised URL or a manifest-chosen key.
///
/// Writer and reader both build identifiers with this type, so an app asking for
/// `HTTPS://CDN.example.com:443/a.jpg#top` finds what the manifest listed as
/// `https://cdn.example.com/a.jpg`.
///
/// URL normalisation (for `http` and `https`):
/// - scheme and host are lowercased; the default port (80, 443) is dropped;
/// - the fragment is dropped (servers never see it);
/// - an empty path becomes `/`;
/// - percent-escapes use uppercase hex, and escapes of unreserved characters
///   (`A–Z a–z 0–9 - . _ ~`) are decoded;
/// - the query is kept as written, including parameter order (servers may care).
///
/// Any other string (a local path as written in the manifest, or a `key:` such as
/// `asset://coffee`) is used exactly as given.
public struct SourceIdentifier: Hashable, Sendable, Comparable, CustomStringConvertible {
    /// The canonical text stored in `sources.source`.
    public let rawValue: String

    /// Uses `text` as is; no normalisation. For manifest keys and local paths.
    public init(verbatim text: String) {
        rawValue = text
    }

    /// Normalises an `http`/`https` URL string; other strings are kept verbatim.
    public init(_ text: String) {
        rawValue = SourceIdentifier.normalize(text) ?? text
    }

    public var description: String { rawValue }

    public static func < (lhs: SourceIdentifier, rhs: SourceIdentifier) -> Bool {
        lhs.rawValue < rhs.rawValue
    }

    /// Returns the normalised form of an absolute http(s) URL, or `nil` if `text` is not one.
    public static func normalize(_ text: String) -> String? {
        guard let schemeEnd = text.range(of: "://") else { return nil }
        let scheme = text[..<schemeEnd.lowerBound].lowercased()
        guard scheme == "http" || scheme == "https" else { return nil }
        var rest = Substring(text[schemeEnd.upperBound...])
        if let hash = rest.firstIndex(of: "#") { rest = rest[..<hash] }
        let authorityEnd = rest.firstIndex(where: { $0 == "/" || $0 == "?" }) ?? rest.endIndex
        var authority = String(rest[..<authorityEnd])
        var pathAndQuery = String(rest[authorityEnd...])
        guard !authority.isEmpty else { return nil }

        // Userinfo is kept verbatim; host is lowercased; default port removed.
        var userinfo = ""
        if let at = authority.lastIndex(of: "@") {
            userinfo = String(authority[...at])
            authority = String(authority[authority.index(after: at)...])
        }
        var host = authority
        var port = ""
        if let colon = authority.lastIndex(of: ":"), !authority[colon...].contains("]") {
            host = String(authority[..<colon])
            port = String(authority[authority.index(after: colon)...])
            guard port.allSatisfy(\.isNumber) else { return nil }
        }
        guard !host.isEmpty else { return nil }
        host = host.lowercased()
        if port.isEmpty || (scheme == "http" && port == "80") || (scheme == "https" && port == "443") {
            port = ""
        } else {
            port = ":" + String(Int(port) ?? 0)
        }

        if pathAndQuery.isEmpty || pathAndQuery.first == "?" { pathAndQuery = "/" + pathAndQuery }
        return scheme + "://" + userinfo + host + port + normalizeEscapes(pathAndQuery)
    }

    private static func normalizeEscapes(_ text: String) -> String {
        let bytes = Array(text.utf8)
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "%"), index + 2 < bytes.count,
               let high = hexValue(bytes[index + 1]), let low = hexValue(bytes[index + 2]) {
                let decoded = high << 4 | low
                if isUnreserved(decoded) {
                    out.append(decoded)
                } else {
                    out.append(UInt8(ascii: "%"))
                    out.append(contentsOf: String(format2: decoded).utf8)
                }
                index += 3
            } else {
                out.append(byte)
                index += 1
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return byte - UInt8(ascii: "A") + 10
        default: return nil
        }
    }

    private static func isUnreserved(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
             UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."),
             UInt8(ascii: "_"), UInt8(ascii: "~"):
            return true
        default:
            return false
        }
    }
}

extension String {
    /// Two uppercase hex digits.
    init(format2 byte: UInt8) {
        let digits = Array("0123456789ABCDEF")
        self = String([digits[Int(byte >> 4)], digits[Int(byte & 0xf)]])
    }
}
