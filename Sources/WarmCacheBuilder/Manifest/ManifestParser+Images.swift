import Yams

/// Reading `images:`, the list of source entries.
extension ManifestParser {
    func parseImages(_ node: Node) -> [ManifestImageEntry] {
        guard let items = reader.list(node, what: "'images'", allowSingle: false) else { return [] }
        return items.compactMap(parseImage)
    }

    private func parseImage(_ node: Node) -> ManifestImageEntry? {
        let location = reader.location(node)
        if case .scalar = node, !node.isNull {
            diagnostics.error("each image entry is a mapping, such as '- url: https://...' or '- path: image.png';"
                              + " found \(node.kindDescription)", at: location)
            return nil
        }
        guard let fields = reader.mapping(node, what: "an image entry") else { return nil }
        let known = reader.knownFields(fields, allowed: ManifestKeys.image, in: "an image entry",
                                       misplaced: ManifestKeys.imageMisplaced)
        var sources: [(field: ManifestField, source: ManifestImageEntry.Source?)] = []
        var entry = ManifestImageEntry(source: .urls([]), location: location)
        entry.hadUnknownKeys = known.count < fields.count
        entry.overrides.hadUnknownKeys = entry.hadUnknownKeys
        for field in known {
            switch field.key {
            case "url": sources.append((field, substitutionFreeString(field.value, what: "'url'").map { .url($0) }))
            case "path": sources.append((field, reader.string(field.value, what: "'path'").map { .path($0) }))
            case "urls_from":
                sources.append((field, reader.string(field.value, what: "'urls_from'").map { .urlsFrom($0) }))
            case "urls":
                let urls = reader.list(field.value, what: "'urls'").map {
                    $0.compactMap { substitutionFreeString($0, what: "each of 'urls'") }
                }
                sources.append((field, urls.map { .urls($0) }))
            case "key": entry.key = reader.string(field.value, what: "'key'")
            case "presets": entry.presets = parseNameList(field.value, what: "'presets'")
            case "placeholder": entry.placeholder = parsePlaceholder(field.value)
            default: parseVariantSetting(field, into: &entry.overrides)
            }
        }
        guard let first = sources.first else {
            diagnostics.error("image entry has no source: add one of 'url', 'urls', 'urls_from' or 'path'", at: location)
            return nil
        }
        if sources.count > 1 {
            let names = sources.map { "'\($0.field.key)'" }.joined(separator: " and ")
            diagnostics.error("image entry has both \(names); give one source key per entry",
                              at: sources[1].field.keyLocation)
            return nil
        }
        guard let source = first.source else { return nil }
        entry.source = source
        if let key = entry.key {
            switch source {
            case .url, .path:
                break
            case .urls, .urlsFrom:
                diagnostics.error("'key' names a single source, but this entry lists several: use 'url' or"
                                  + " 'path' with 'key', one entry per keyed source", at: key.location)
            }
            if key.value.isEmpty {
                diagnostics.error("'key' must not be empty", at: key.location)
            }
        }
        if entry.hasOwnBox, let presets = entry.presets {
            diagnostics.error("an image entry with 'presets' cannot set 'width' or 'height' (they would resize"
                              + " every preset); define a preset for this size, or remove 'presets' so the entry"
                              + " describes its own variant", at: presets.location)
        }
        return entry
    }

    /// A URL as written. `${VAR}` is refused here: identifiers are stored in the bundle and must
    /// not depend on, or leak, the environment.
    private func substitutionFreeString(_ node: Node, what: String) -> Located<String>? {
        guard let text = reader.string(node, what: what) else { return nil }
        guard !ManifestEnvironment.containsReference(text.value) else {
            diagnostics.error("environment variables are not substituted in URLs (a URL is the image's identity"
                              + " in the bundle); send credentials with 'fetch.headers' or 'fetch.hosts'",
                              at: text.location)
            return nil
        }
        return text
    }
}
