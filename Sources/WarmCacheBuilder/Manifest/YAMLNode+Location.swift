import Yams

extension Node {
    /// The node's position as a ``ManifestLocation`` in `file` (1:1 when Yams has no mark,
    /// which only happens for nodes built in code rather than parsed).
    func location(in file: String) -> ManifestLocation {
        ManifestLocation(file: file, line: mark?.line ?? 1, column: mark?.column ?? 1)
    }

    /// Whether this is YAML's null: an empty plain value, `~` or `null`.
    var isNull: Bool {
        guard case .scalar(let scalar) = self, scalar.style == .plain || scalar.style == .any else { return false }
        return ["", "~", "null", "Null", "NULL"].contains(scalar.string)
    }

    /// The text of a plain (unquoted) scalar; `nil` for quoted scalars and collections.
    /// Numbers and booleans are only read from plain scalars: `"64"` is a string in YAML.
    var plainText: String? {
        guard case .scalar(let scalar) = self, scalar.style == .plain || scalar.style == .any else { return nil }
        return scalar.string
    }

    /// How the node reads in a message, without ever echoing a long value:
    /// "a mapping", "a list", "null", "the number 12", "the string 'abc'".
    var kindDescription: String {
        switch self {
        case .mapping: return "a mapping"
        case .sequence: return "a list"
        case .alias: return "an alias"
        case .scalar(let scalar):
            if isNull { return "null" }
            let text = scalar.string.count > 40 ? String(scalar.string.prefix(37)) + "..." : scalar.string
            if let plain = plainText {
                if Double(plain.replacingOccurrences(of: "_", with: "")) != nil { return "the number \(plain)" }
                if ["true", "false", "yes", "no", "on", "off"].contains(plain.lowercased()) {
                    return "the boolean \(plain)"
                }
            }
            return "the string '\(text)'"
        }
    }
}
