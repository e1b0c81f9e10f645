import WarmCache
import WarmCacheImaging
import Yams

/// Reading the variant keys shared by `defaults`, presets and image entries.
extension ManifestParser {
    /// Limits on sizes in points. Pixel limits (points x scale) are checked when expanding.
    static let maximumPoints = 16_383
    static let scaleRange = 1...8
    static let qualityRange = 1...100
    /// Each format's own range is checked once formats are known (``EncoderTable``).
    static let effortRange = EncoderTable.anyEffort

    /// Parses one variant key into `settings`. The caller has already rejected unknown keys.
    func parseVariantSetting(_ field: ManifestField, into settings: inout ManifestVariantSettings) {
        let node = field.value
        let what = "'\(field.key)'"
        switch field.key {
        case "width": settings.width = reader.integer(node, what: what, in: 1...Self.maximumPoints)
        case "height": settings.height = reader.integer(node, what: what, in: 1...Self.maximumPoints)
        case "fit": settings.fit = parseFit(node)
        case "gravity": settings.gravity = parseGravity(node)
        case "background": settings.background = parseColour(node, what: what)
        case "upscale": settings.upscale = reader.bool(node, what: what)
        case "formats": settings.formats = parseFormats(node)
        case "quality": settings.quality = parseQuality(node)
        case "quality_target":
            settings.qualityTarget = reader.integer(node, what: what, in: PerceptualQuality.targetRange)
        case "speed": settings.speed = parseSpeed(node)
        case "scales":
            if let items = reader.list(node, what: what) {
                guard !items.isEmpty else {
                    diagnostics.error("'scales' is empty; list at least one scale, such as [1, 2, 3]",
                                      at: reader.location(node))
                    break
                }
                let scales = items.compactMap { reader.integer($0, what: "each scale", in: Self.scaleRange) }
                settings.scales = Located(scales, at: reader.location(node))
            }
        case "processors": settings.processors = parseProcessors(node)
        case "lossless": settings.lossless = reader.bool(node, what: what)
        case "progressive": settings.progressive = reader.bool(node, what: what)
        case "chroma_subsampling", "subsample": settings.chromaSubsampling = parseSubsampling(node, what: what)
        case "effort": settings.effort = reader.integer(node, what: what, in: Self.effortRange)
        case "palette": settings.palette = reader.bool(node, what: what)
        case "keep_icc": settings.keepICCProfile = reader.bool(node, what: what)
        default: break
        }
    }

    private func parseSpeed(_ node: Node) -> Located<SearchSpeed>? {
        guard let name = reader.string(node, what: "'speed'") else { return nil }
        guard let speed = SearchSpeed(rawValue: name.value.lowercased()) else {
            let names = SearchSpeed.allCases.map(\.rawValue)
            diagnostics.error("unknown speed '\(name.value)'\(ManifestSuggestions.hint(for: name.value, in: names));"
                              + " use fast, balanced (the default) or smallest", at: name.location)
            return nil
        }
        return name.map { _ in speed }
    }

    private func parseFit(_ node: Node) -> Located<FitMode.Kind>? {
        guard let name = reader.string(node, what: "'fit'") else { return nil }
        guard let kind = FitMode.Kind(rawValue: name.value.lowercased()) else {
            let names = FitMode.Kind.allCases.map(\.rawValue)
            diagnostics.error("unknown fit '\(name.value)'\(ManifestSuggestions.hint(for: name.value, in: names));"
                              + " use \(names.joined(separator: ", "))", at: name.location)
            return nil
        }
        return name.map { _ in kind }
    }

    private func parseGravity(_ node: Node) -> Located<CropGravity>? {
        guard let name = reader.string(node, what: "'gravity'") else { return nil }
        guard let gravity = CropGravity(name: name.value) else {
            let names = CropGravity.allCases.map(\.rawValue) + ["center", "top", "bottom", "left", "right", "smart"]
            diagnostics.error("unknown gravity '\(name.value)'\(ManifestSuggestions.hint(for: name.value, in: names));"
                              + " use centre, north, south, east, west, northeast, northwest, southeast,"
                              + " southwest, attention or entropy", at: name.location)
            return nil
        }
        return name.map { _ in gravity }
    }

    /// A colour: `"#rrggbb"`, `"#rrggbbaa"`, `"#rgb"`, the same without `#`, or `transparent`.
    func parseColour(_ node: Node, what: String) -> Located<RGBAColor>? {
        if node.isNull {
            diagnostics.error("\(what) needs a colour; an unquoted '#' starts a YAML comment, so quote it:"
                              + " \"#ffffff\"", at: reader.location(node))
            return nil
        }
        guard let text = reader.string(node, what: what) else { return nil }
        guard let colour = RGBAColor(hex: text.value) else {
            diagnostics.error("\(what) must be a colour such as \"#ffffff\", \"#00000080\" or transparent,"
                              + " found '\(text.value)'", at: text.location)
            return nil
        }
        return text.map { _ in colour }
    }

    private func parseFormats(_ node: Node) -> Located<[Located<FormatChoice>]>? {
        guard let items = reader.list(node, what: "'formats'") else { return nil }
        if items.isEmpty {
            diagnostics.error("'formats' is empty; list at least one format", at: reader.location(node))
            return nil
        }
        var formats: [Located<FormatChoice>] = []
        for item in items {
            guard let token = reader.string(item, what: "each format") else { continue }
            guard let choice = Self.formatChoice(token.value) else {
                let names = ImageFormat.allCases.map(\.rawValue) + ["auto", "smallest", "jpg"]
                diagnostics.error("unknown format '\(token.value)'\(ManifestSuggestions.hint(for: token.value, in: names));"
                                  + " use smallest, auto, jpeg, png, webp, avif, heic, jxl or gif", at: token.location)
                continue
            }
            if formats.contains(where: { $0.value == choice }) {
                diagnostics.warning("format '\(token.value)' is listed twice", at: token.location)
                continue
            }
            formats.append(token.map { _ in choice })
        }
        return Located(formats, at: reader.location(node))
    }

    /// A format token. `smallest` comes back without candidates: the plan fills them in from
    /// the manifest's `platforms:`.
    static func formatChoice(_ token: String) -> FormatChoice? {
        switch token.lowercased() {
        case "auto": return .auto()
        case "smallest": return .smallest(opaque: [], alpha: [])
        default: return ImageFormat(token: token).map { .fixed($0) }
        }
    }

    /// `quality: { jpeg: 82, webp: auto }`, or `quality: 80` / `quality: auto` for every format.
    private func parseQuality(_ node: Node) -> [ImageFormat: Located<QualitySetting>] {
        if case .scalar = node, !node.isNull {
            guard let value = qualitySetting(node, what: "'quality'") else { return [:] }
            return Dictionary(uniqueKeysWithValues: ImageFormat.allCases.map { ($0, value) })
        }
        guard let fields = reader.mapping(node, what: "'quality'") else { return [:] }
        var quality: [ImageFormat: Located<QualitySetting>] = [:]
        for field in fields {
            guard let format = ImageFormat(token: field.key) else {
                if field.key.lowercased() == "auto" {
                    diagnostics.error("quality is set per output format, and 'auto' becomes jpeg or png:"
                                      + " set 'jpeg' (and 'png') instead", at: field.keyLocation)
                } else {
                    let hint = ManifestSuggestions.hint(for: field.key, in: ImageFormat.allCases.map(\.rawValue))
                    diagnostics.error("unknown format '\(field.key)' in 'quality'\(hint)", at: field.keyLocation)
                }
                continue
            }
            quality[format] = qualitySetting(field.value, what: "quality for \(format.rawValue)")
        }
        return quality
    }

    /// `auto` (perceptual: the lowest quality that reaches `quality_target`) or a number 1–100.
    private func qualitySetting(_ node: Node, what: String) -> Located<QualitySetting>? {
        if case .scalar(let scalar) = node, scalar.string.lowercased() == "auto" {
            return Located(.perceptual, at: reader.location(node))
        }
        if node.plainText.map({ Int($0) == nil }) ?? false {
            diagnostics.error("\(what) must be auto or a number from \(Self.qualityRange.lowerBound) to"
                              + " \(Self.qualityRange.upperBound), found \(node.kindDescription)", at: reader.location(node))
            return nil
        }
        return reader.integer(node, what: what, in: Self.qualityRange).map { located in located.map { .fixed($0) } }
    }

    /// `true`/`false`, or the ratio names `4:2:0` (subsample) and `4:4:4` (full chroma).
    private func parseSubsampling(_ node: Node, what: String) -> Located<Bool>? {
        if case .scalar(let scalar) = node, scalar.string == "4:2:0" || scalar.string == "4:4:4" {
            return Located(scalar.string == "4:2:0", at: reader.location(node))
        }
        if node.plainText.map({ ["true", "false", "yes", "no", "on", "off"].contains($0.lowercased()) }) != true {
            diagnostics.error("\(what) must be true, false, \"4:2:0\" or \"4:4:4\", found \(node.kindDescription)",
                              at: reader.location(node))
            return nil
        }
        return reader.bool(node, what: what)
    }
}
