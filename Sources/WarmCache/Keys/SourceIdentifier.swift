/// The identity of a source image in a bundle: a normalised URL or a manifest-chosen key.
///
/// Writer and reader both build identifiers with this type, so an app asking for
/// `HTTPS://CDN.example.com:443/a.jpg#top` finds what the manifest listed as
/// `https://cdn.example.com/a.jpg`.
///
/// URL normalisation (`docs/bundle-format.md`, "Source identifiers", is the reference). A string
/// is a URL when the text before its first `://` is `http` or `https` in any ASCII case; then:
/// - the scheme is lowercased; everything from the first `#` on (the fragment) is dropped;
/// - the authority runs to the first `/` or `?`; userinfo (up to its last `@`) is kept as written;
/// - the host's ASCII letters are lowercased, other bytes kept (IDN hosts are not converted to
///   `xn--` form: write them that way);
/// - a port of ASCII digits is kept as a number without leading zeros, dropped when it is the
///   scheme's default (80, 443) or empty;
/// - an empty path becomes `/`; dot segments (`.`, `..`) are kept as written;
/// - in path and query, percent-escapes get uppercase hex, escapes of unreserved characters
///   (`A–Z a–z 0–9 - . _ ~`) are decoded, and bytes 0x00–0x20 and 0x7F–0xFF are escaped.
///
/// A string whose authority is empty, whose host is empty, or whose port is not 0–65535 in ASCII
/// digits is not a URL. Any other string (a local path as written in the manifest, or a `key:`
/// such as `asset://coffee`) is used exactly as given.
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

    /// The canonical text, as ``rawValue``.
    public var description: String { rawValue }

    /// Orders identifiers by their canonical text.
    public static func < (lhs: SourceIdentifier, rhs: SourceIdentifier) -> Bool {
        lhs.rawValue < rhs.rawValue
    }

    /// Returns the normalised form of an absolute http(s) URL, or `nil` if `text` is not one.
    package static func normalize(_ text: String) -> String? {
        var text = text
        return text.withUTF8 { normalize(bytes: $0) }
    }

    private static func normalize(bytes: UnsafeBufferPointer<UInt8>) -> String? {
        let colon = UInt8(ascii: ":"), slash = UInt8(ascii: "/")
        var schemeEnd: Int?
        var index = 0
        while index + 2 < bytes.count {
            if bytes[index] == colon, bytes[index + 1] == slash, bytes[index + 2] == slash { schemeEnd = index; break }
            index += 1
        }
        guard let schemeEnd else { return nil }
        let scheme = String(decoding: bytes[..<schemeEnd].map(asciiLowercased), as: UTF8.self)
        guard scheme == "http" || scheme == "https" else { return nil }

        var end = bytes.count
        if let hash = bytes[(schemeEnd + 3)...].firstIndex(of: UInt8(ascii: "#")) { end = hash }
        let rest = bytes[(schemeEnd + 3)..<end]
        let authorityEnd = rest.firstIndex { $0 == slash || $0 == UInt8(ascii: "?") } ?? rest.endIndex
        var authority = rest[..<authorityEnd]
        guard !authority.isEmpty else { return nil }

        var out: [UInt8] = Array(scheme.utf8) + [colon, slash, slash]
        out.reserveCapacity(bytes.count + 8)
        if let at = authority.lastIndex(of: UInt8(ascii: "@")) {
            out += authority[...at]
            authority = authority[(at + 1)...]
        }
        var host = authority
        var portDigits: ArraySlice<UInt8> = []
        if let portColon = authority.lastIndex(of: colon), !authority[portColon...].contains(UInt8(ascii: "]")) {
            host = authority[..<portColon]
            portDigits = ArraySlice(authority[(portColon + 1)...])
        }
        guard !host.isEmpty else { return nil }
        out += host.map(asciiLowercased)
        guard portDigits.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }) else { return nil }
        let significant = portDigits.drop { $0 == UInt8(ascii: "0") }
        if !portDigits.isEmpty {
            guard significant.count <= 5 else { return nil }
            let number = significant.reduce(0) { $0 * 10 + Int($1 - UInt8(ascii: "0")) }
            guard number <= 65_535 else { return nil }
            let isDefault = (scheme == "http" && number == 80) || (scheme == "https" && number == 443)
            if !isDefault { out += Array(":\(number)".utf8) }
        }

        let pathAndQuery = rest[authorityEnd...]
        if pathAndQuery.first != slash { out.append(slash) }
        appendNormalizingEscapes(pathAndQuery, to: &out)
        return String(decoding: out, as: UTF8.self)
    }

    private static func asciiLowercased(_ byte: UInt8) -> UInt8 {
        (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) ? byte + 32 : byte
    }

    private static func appendNormalizingEscapes(_ bytes: UnsafeBufferPointer<UInt8>.SubSequence, to out: inout [UInt8]) {
        var index = bytes.startIndex
        while index < bytes.endIndex {
            let byte = bytes[index]
            if byte == UInt8(ascii: "%"), index + 2 < bytes.endIndex,
               let high = hexValue(bytes[index + 1]), let low = hexValue(bytes[index + 2]) {
                let decoded = high << 4 | low
                if isUnreserved(decoded) {
                    out.append(decoded)
                } else {
                    out.append(UInt8(ascii: "%"))
                    out.append(contentsOf: String(format2: decoded).utf8)
                }
                index += 3
            } else if byte <= 0x20 || byte >= 0x7F {
                out.append(UInt8(ascii: "%"))
                out.append(contentsOf: String(format2: byte).utf8)
                index += 1
            } else {
                out.append(byte)
                index += 1
            }
        }
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
