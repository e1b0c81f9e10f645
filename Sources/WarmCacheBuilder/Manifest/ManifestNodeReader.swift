import Yams

/// A key of a YAML mapping, with where it was written, and its value.
struct ManifestField {
    var key: String
    var keyLocation: ManifestLocation
    var value: Node
}

/// Reads typed values out of a composed YAML tree, reporting every mismatch with its location.
///
/// Each read returns `nil` after reporting when the value is unusable, so callers simply skip
/// what failed and go on reading the rest of the manifest. Names in messages (`what`) are the
/// manifest's own spelling, e.g. `'width'` or `'fetch.timeout'`.
struct ManifestNodeReader {
    let file: String
    let diagnostics: ManifestDiagnostics

    func location(_ node: Node) -> ManifestLocation {
        node.location(in: file)
    }

    // MARK: Collections

    /// The fields of a mapping, in written order. YAML merge keys (`<<: *anchor`) are expanded;
    /// keys written in the mapping itself win over merged ones. Null reads as an empty mapping.
    func mapping(_ node: Node, what: String) -> [ManifestField]? {
        if node.isNull { return [] }
        guard case .mapping(let mapping) = node else {
            diagnostics.error("\(what) must be a mapping (key: value lines), found \(node.kindDescription)",
                              at: location(node))
            return nil
        }
        var explicit: [ManifestField] = []
        var merged: [ManifestField] = []
        for (key, value) in mapping {
            guard case .scalar(let scalar) = key else {
                diagnostics.error("keys in \(what) must be plain names, found \(key.kindDescription)",
                                  at: location(key))
                continue
            }
            if scalar.string == "<<", key.plainText != nil {
                let sources = value.sequence.map(Array.init) ?? [value]
                for source in sources {
                    merged += self.mapping(source, what: "a merged mapping ('<<')") ?? []
                }
            } else {
                explicit.append(ManifestField(key: scalar.string, keyLocation: location(key), value: value))
            }
        }
        var seen = Set(explicit.map(\.key))
        let inherited = merged.filter { seen.insert($0.key).inserted }
        return explicit + inherited
    }

    /// Reports every key not in `allowed`, with a suggestion, or with the explanation from
    /// `misplaced` when the key belongs elsewhere in the manifest. Returns the known fields.
    func knownFields(_ fields: [ManifestField], allowed: [String], in context: String,
                     misplaced: [String: String] = [:]) -> [ManifestField] {
        fields.filter { field in
            if allowed.contains(field.key) { return true }
            if let explanation = misplaced[field.key] {
                diagnostics.error("'\(field.key)' is not allowed in \(context): \(explanation)", at: field.keyLocation)
            } else {
                let hint = ManifestSuggestions.hint(for: field.key, in: allowed)
                diagnostics.error("unknown key '\(field.key)' in \(context)\(hint)", at: field.keyLocation)
            }
            return false
        }
    }

    /// The items of a list. With `allowSingle`, a lone scalar reads as a one-item list
    /// (`formats: webp` is `formats: [webp]`).
    func list(_ node: Node, what: String, allowSingle: Bool = true) -> [Node]? {
        if case .sequence(let sequence) = node { return Array(sequence) }
        if allowSingle, case .scalar = node, !node.isNull { return [node] }
        diagnostics.error("\(what) must be a list, found \(node.kindDescription)", at: location(node))
        return nil
    }

    // MARK: Scalars

    /// Any non-null scalar as text, whatever its quoting.
    func string(_ node: Node, what: String) -> Located<String>? {
        guard case .scalar(let scalar) = node, !node.isNull else {
            diagnostics.error("\(what) must be a string, found \(node.kindDescription)", at: location(node))
            return nil
        }
        return Located(scalar.string, at: location(node))
    }

    /// A whole number from a plain scalar (`_` separators allowed), within `range`.
    func integer(_ node: Node, what: String, in range: ClosedRange<Int>) -> Located<Int>? {
        guard let text = plainNumberText(node, what: what, expected: "a whole number") else { return nil }
        guard let value = Int(text) else {
            diagnostics.error("\(what) must be a whole number, found \(node.kindDescription)", at: location(node))
            return nil
        }
        guard range.contains(value) else {
            diagnostics.error("\(what) must be between \(range.lowerBound) and \(range.upperBound), found \(value)",
                              at: location(node))
            return nil
        }
        return Located(value, at: location(node))
    }

    /// A finite number from a plain scalar, greater than zero and at most `maximum`.
    func positiveNumber(_ node: Node, what: String, maximum: Double) -> Located<Double>? {
        guard let text = plainNumberText(node, what: what, expected: "a number") else { return nil }
        guard let value = Double(text), value.isFinite else {
            diagnostics.error("\(what) must be a number, found \(node.kindDescription)", at: location(node))
            return nil
        }
        guard value > 0, value <= maximum else {
            let shown = value == value.rounded() ? String(Int(value)) : String(value)
            diagnostics.error("\(what) must be greater than 0 and at most \(Int(maximum)), found \(shown)",
                              at: location(node))
            return nil
        }
        return Located(value, at: location(node))
    }

    /// `true`/`false` (also `yes`/`no`, `on`/`off`) from a plain scalar.
    func bool(_ node: Node, what: String) -> Located<Bool>? {
        switch node.plainText?.lowercased() {
        case "true", "yes", "on": return Located(true, at: location(node))
        case "false", "no", "off": return Located(false, at: location(node))
        default:
            diagnostics.error("\(what) must be true or false, found \(node.kindDescription)", at: location(node))
            return nil
        }
    }

    private func plainNumberText(_ node: Node, what: String, expected: String) -> String? {
        guard let text = node.plainText, !node.isNull else {
            if case .scalar(let scalar) = node, !node.isNull, Double(scalar.string) != nil {
                diagnostics.error("\(what) must be \(expected), found the quoted string '\(scalar.string)'"
                                  + " (remove the quotes)", at: location(node))
            } else {
                diagnostics.error("\(what) must be \(expected), found \(node.kindDescription)", at: location(node))
            }
            return nil
        }
        return text.replacingOccurrences(of: "_", with: "")
    }
}
