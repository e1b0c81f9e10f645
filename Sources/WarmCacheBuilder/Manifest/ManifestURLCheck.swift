import Foundation
import WarmCache

/// Checks that a manifest URL is one the fetcher can download, and normalises it.
///
/// Accepted: absolute `http`/`https` URLs with a host, written with URL characters only
/// (anything else, such as spaces or accented letters, must be percent-encoded, so the
/// identifier is exactly what the app asks for).
enum ManifestURLCheck {
    struct Problem: Error, Equatable {
        var text: String
        var kind: Kind

        enum Kind: Equatable {
            case notAURL
            case schemeRelative
            case fileScheme
            case unsupportedScheme(String)
            case invalidCharacter(Character)
            case noHost
            case portNotANumber(String)
            case portOutOfRange(String)
            case invalid
        }

        /// The message, with `advice` (how to list a local file) where it helps.
        func message(advice: String) -> String {
            switch kind {
            case .notAURL:
                return "'\(text)' is not a URL (URLs start with https:// or http://); \(advice)"
            case .schemeRelative:
                return "'\(text)' has no scheme; write 'https:\(text)'"
            case .fileScheme:
                return "file URLs are not fetched: '\(text)'; \(advice)"
            case .unsupportedScheme(let scheme):
                return "unsupported URL scheme '\(scheme)' in '\(text)': only http and https URLs can be fetched"
            case .invalidCharacter(let character):
                let encoded = String(character).utf8.map { byte in
                    "%" + String(byte >> 4, radix: 16, uppercase: true) + String(byte & 0xF, radix: 16, uppercase: true)
                }.joined()
                let shown = character == " " ? "a space" : "'\(character)'"
                return "URL '\(text)' contains \(shown), which must be percent-encoded as \(encoded)"
            case .noHost:
                return "URL '\(text)' has no host; write it as https://host/path"
            case .portNotANumber(let port):
                return "URL '\(text)' has the port '\(port)', which is not a number; write a port from 1 to 65535 "
                    + "after the host, or none"
            case .portOutOfRange(let port):
                return "URL '\(text)' has the port \(port), out of the range 1–65535; correct the port, or leave it "
                    + "out for the scheme's default"
            case .invalid:
                return "invalid URL '\(text)'; write it as https://host/path (or http://host:port/path)"
            }
        }
    }

    /// RFC 3986 characters: unreserved, reserved, and `%` for escapes (all ASCII), as a table
    /// by byte: a `urls_from` file of a million lines is checked byte by byte, not by `Character`.
    private static let allowed: [Bool] = {
        var table = [Bool](repeating: false, count: 256)
        for byte in "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~:/?#[]@!$&'()*+,;=%".utf8 {
            table[Int(byte)] = true
        }
        return table
    }()

    /// Where `://` first occurs in `text`.
    private static func schemeSeparator(in text: String) -> Range<String.Index>? {
        let utf8 = text.utf8
        var index = utf8.startIndex
        while index != utf8.endIndex {
            if utf8[index] == UInt8(ascii: ":") {
                let rest = utf8[utf8.index(after: index)...]
                if rest.starts(with: "//".utf8) { return index..<utf8.index(index, offsetBy: 3) }
            }
            index = utf8.index(after: index)
        }
        return nil
    }

    private static func isASCIILetter(_ byte: UInt8) -> Bool {
        (byte | 0x20) >= UInt8(ascii: "a") && (byte | 0x20) <= UInt8(ascii: "z")
    }

    /// The first character of `text` that a URL may not hold as it is.
    private static func firstInvalidCharacter(_ text: String) -> Character? {
        guard text.utf8.contains(where: { !allowed[Int($0)] }) else { return nil }
        return text.first { character in !character.utf8.allSatisfy { allowed[Int($0)] } }
    }

    /// What is wrong with the host and port after `://`, if anything: no host, a port that is
    /// not a number, or one outside 1–65535.
    private static func authorityProblem(_ text: String, after start: String.Index) -> Problem.Kind? {
        let rest = text[start...]
        var authority = rest.prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        if let at = authority.lastIndex(of: "@") { authority = authority[authority.index(after: at)...] }
        var port: Substring?
        if authority.hasPrefix("[") {  // an IPv6 literal: [::1]:8080
            guard let close = authority.firstIndex(of: "]") else { return nil }
            let after = authority[authority.index(after: close)...]
            if after.hasPrefix(":") { port = after.dropFirst() }
        } else if let colon = authority.lastIndex(of: ":") {
            port = authority[authority.index(after: colon)...]
            authority = authority[..<colon]
        }
        if authority.isEmpty { return .noHost }
        guard let port, !port.isEmpty else { return nil }
        guard port.allSatisfy({ $0.isASCII && $0.isNumber }) else { return .portNotANumber(String(port)) }
        guard let number = Int(port), (1...65535).contains(number) else { return .portOutOfRange(String(port)) }
        return nil
    }

    /// A URL that passed: what to fetch, and the normalised text, which is also the source's
    /// identifier (`SourceIdentifier(text)`).
    struct Checked {
        var url: URL
        var identifier: SourceIdentifier
    }

    /// The URL to fetch: the normalised form, which is also the source's identifier.
    static func check(_ text: String) -> Result<Checked, Problem> {
        if text.hasPrefix("//") { return .failure(Problem(text: text, kind: .schemeRelative)) }
        guard let schemeEnd = Self.schemeSeparator(in: text) else { return .failure(Problem(text: text, kind: .notAURL)) }
        // RFC 3986: a letter, then letters, digits, `+`, `-` and `.` (ASCII), compared as bytes.
        let schemeBytes = text.utf8[..<schemeEnd.lowerBound]
        guard let first = schemeBytes.first, Self.isASCIILetter(first), schemeBytes.allSatisfy({ byte in
            Self.isASCIILetter(byte) || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9"))
                || byte == UInt8(ascii: "+") || byte == UInt8(ascii: "-") || byte == UInt8(ascii: ".")
        }) else {
            return .failure(Problem(text: text, kind: .notAURL))
        }
        let scheme = String(decoding: schemeBytes.map { $0 | 0x20 }, as: UTF8.self)  // lowercased (letters only matter)
        guard scheme == "http" || scheme == "https" else {
            return .failure(Problem(text: text, kind: scheme == "file" ? .fileScheme : .unsupportedScheme(scheme)))
        }
        if let bad = firstInvalidCharacter(text) {
            return .failure(Problem(text: text, kind: .invalidCharacter(bad)))
        }
        if let problem = authorityProblem(text, after: schemeEnd.upperBound) {
            return .failure(Problem(text: text, kind: problem))
        }
        guard let normalized = SourceIdentifier.normalize(text), let url = URL(string: normalized),
              url.host?.isEmpty == false else {
            return .failure(Problem(text: text, kind: .invalid))
        }
        return .success(Checked(url: url, identifier: SourceIdentifier(verbatim: normalized)))
    }
}
