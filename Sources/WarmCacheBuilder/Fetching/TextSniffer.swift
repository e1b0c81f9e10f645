/// Classifies the start of a body that has no binary image signature: is it an SVG, an
/// HTML page (the classic "200 OK" error or login page), JSON, other XML, text, or binary?
///
/// Only the prologue is examined. An SVG may legally start with a byte-order mark,
/// whitespace, an XML declaration, comments, processing instructions and a doctype
/// before its root `<svg` element; all of those are skipped, and the first real element
/// decides.
struct TextSniffer {
    enum Kind: Equatable {
        case svg, html, xml, json, text, binary
    }

    let kind: Kind

    init(_ bytes: [UInt8]) {
        kind = Self.classify(bytes)
    }

    private static func classify(_ bytes: [UInt8]) -> Kind {
        var body = bytes[...]
        if body.starts(with: [0xEF, 0xBB, 0xBF]) { body = body.dropFirst(3) }  // UTF-8 BOM
        guard looksLikeText(body) else { return .binary }
        // Lowercased ASCII view; markup keywords are ASCII, anything else stays as is.
        var rest = Substring(String(decoding: body, as: UTF8.self).lowercased())

        // Each pass removes one prologue construct; the input is at most a few KB, so
        // the loop is bounded by its length.
        while true {
            rest = rest.drop(while: \.isWhitespace)
            if rest.hasPrefix("<?") {
                guard let end = rest.range(of: "?>") else { return .xml }
                rest = rest[end.upperBound...]
            } else if rest.hasPrefix("<!--") {
                guard let end = rest.range(of: "-->") else { return .xml }
                rest = rest[end.upperBound...]
            } else if rest.hasPrefix("<!doctype") {
                let doctype = rest.prefix(while: { $0 != ">" })
                if doctype.contains("html") { return .html }
                if doctype.contains("svg") { return svgAhead(rest) }
                guard let end = rest.firstIndex(of: ">") else { return .xml }
                rest = rest[rest.index(after: end)...]
            } else {
                break
            }
        }
        if startsElement(rest, named: "svg") || rest.hasPrefix("<svg:svg") { return .svg }
        for name in ["html", "head", "body", "meta", "title", "script", "style", "div", "p", "h1", "link"]
        where startsElement(rest, named: name) {
            return .html
        }
        if rest.hasPrefix("<") { return rest.contains("<html") ? .html : .xml }
        if rest.hasPrefix("{") || rest.hasPrefix("[") { return .json }
        return .text
    }

    /// After an SVG doctype, the root element must still be `<svg`.
    private static func svgAhead(_ text: Substring) -> Kind {
        text.contains("<svg") ? .svg : .xml
    }

    /// Whether `text` starts with `<name` followed by whitespace, `>` or `/` (so `<p`
    /// does not match `<path`).
    private static func startsElement(_ text: Substring, named name: String) -> Bool {
        guard text.hasPrefix("<" + name) else { return false }
        guard let after = text.dropFirst(name.count + 1).first else { return true }
        return after == ">" || after == "/" || after.isWhitespace
    }

    /// Text has no NUL bytes and few control characters (tab, CR and LF are fine).
    /// UTF-8 multi-byte sequences are all >= 0x80, so they count as text.
    private static func looksLikeText(_ bytes: ArraySlice<UInt8>) -> Bool {
        guard !bytes.isEmpty else { return false }
        var controls = 0
        for byte in bytes {
            if byte == 0 { return false }
            if byte < 0x20, byte != 0x09, byte != 0x0A, byte != 0x0D, byte != 0x0C { controls += 1 }
        }
        return controls * 20 < bytes.count
    }
}
