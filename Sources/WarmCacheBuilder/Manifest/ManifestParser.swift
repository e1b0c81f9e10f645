import WarmCache
import WarmCacheImaging
import Yams

/// Turns a composed YAML tree into a ``Manifest``, type-checking every key and reporting each
/// problem with its location. Cross-key checks (preset names, sizes against fits, formats
/// against transparency, files on disk) are ``PlanBuilder``'s job.
struct ManifestParser {
    let reader: ManifestNodeReader
    let environment: ManifestEnvironment
    /// The manifest's lines, to place errors inside a value (e.g. at a `${VAR}` reference).
    let sourceLines: [Substring]

    var diagnostics: ManifestDiagnostics { reader.diagnostics }

    /// The manifest version this loader understands.
    static let supportedVersion = 1

    func parse(root: Node) -> Manifest {
        var manifest = Manifest()
        guard let fields = reader.mapping(root, what: "the manifest") else { return manifest }
        let known = reader.knownFields(fields, allowed: ManifestKeys.topLevel, in: "the manifest",
                                       misplaced: ManifestKeys.topLevelMisplaced)
        for field in known {
            switch field.key {
            case "version": manifest.version = parseVersion(field.value)
            case "output": manifest.output = parseOutput(field.value)
            case "platforms": manifest.platforms = parsePlatforms(field.value)
            case "budget":
                if let bytes = byteSize(field.value, what: "'budget'", minimum: 0) {
                    manifest.budget = Located(bytes, at: reader.location(field.value))
                }
            case "defaults": parseDefaults(field.value, into: &manifest)
            case "presets": manifest.presets = parsePresets(field.value)
            case "fetch": manifest.fetch = parseFetch(field.value)
            case "images":
                manifest.imagesLocation = field.keyLocation
                manifest.images = parseImages(field.value)
            default: break
            }
        }
        let start = reader.location(root)
        if manifest.platforms == nil {
            reportSmallestWithoutPlatforms(manifest)
        }
        if !known.contains(where: { $0.key == "fetch" }) {
            manifest.fetch.proxies = environmentProxies(at: start)
        }
        manifest.fetch.extraCertificates = environmentCertificates(at: start)
        if manifest.version == nil, !known.contains(where: { $0.key == "version" }) {
            diagnostics.error("missing 'version: \(Self.supportedVersion)' at the top of the manifest", at: start)
        }
        if !known.contains(where: { $0.key == "output" }) {
            diagnostics.error("missing 'output': the bundle directory to write, relative to the manifest"
                              + " (e.g. 'output: Build/Images.warmcache')", at: start)
        }
        if !known.contains(where: { $0.key == "images" }) {
            diagnostics.error("missing 'images': the list of sources to bake", at: start)
        }
        return manifest
    }

    private func parseVersion(_ node: Node) -> Located<Int>? {
        guard let version = reader.integer(node, what: "'version'", in: Int.min...Int.max) else { return nil }
        guard version.value == Self.supportedVersion else {
            diagnostics.error("unsupported manifest version \(version.value); this warm-cache reads version"
                              + " \(Self.supportedVersion)", at: version.location)
            return nil
        }
        return version
    }

    private func parseOutput(_ node: Node) -> Located<String>? {
        guard let output = substitutedString(node, what: "'output'") else { return nil }
        if let problem = OutputName.problem(with: output.value) {
            diagnostics.error("'output' \(problem)", at: output.location)
            return nil
        }
        return Located(OutputName.normalized(output.value), at: output.location)
    }

    /// `platforms: { ios: "16.0", android: "12" }`: the oldest OS version the app supports on
    /// each platform it ships to.
    private func parsePlatforms(_ node: Node) -> Located<AppPlatforms>? {
        guard let fields = reader.mapping(node, what: "'platforms'") else { return nil }
        var minimums: [AppPlatforms.Platform: OSVersion] = [:]
        let names = AppPlatforms.Platform.allCases.map(\.rawValue)
        for field in fields {
            guard let platform = AppPlatforms.Platform(rawValue: field.key.lowercased()) else {
                diagnostics.error("unknown platform '\(field.key)' in 'platforms'"
                                  + "\(ManifestSuggestions.hint(for: field.key, in: names)); use "
                                  + names.joined(separator: ", "), at: field.keyLocation)
                continue
            }
            // YAML reads `16.0` as a number and `16.0.1` as a string: take the text as written.
            guard case .scalar(let scalar) = field.value, let version = OSVersion(parsing: scalar.string) else {
                diagnostics.error("the \(platform.displayName) version must be a version such as \"16.0\", found"
                                  + " \(field.value.kindDescription)", at: reader.location(field.value))
                continue
            }
            minimums[platform] = version
        }
        if fields.isEmpty {
            diagnostics.error("'platforms' is empty; list the oldest OS version the app supports, such as"
                              + " { ios: \"16.0\" }", at: reader.location(node))
            return nil
        }
        return Located(AppPlatforms(minimums), at: reader.location(node))
    }

    /// `formats: [smallest]` chooses among what the app's platforms decode, so it needs `platforms:`.
    private func reportSmallestWithoutPlatforms(_ manifest: Manifest) {
        let layers = [manifest.defaults] + manifest.presets.map(\.settings) + manifest.images.map(\.overrides)
        for layer in layers {
            for format in layer.formats?.value ?? [] {
                guard case .smallest = format.value else { continue }
                diagnostics.error("format 'smallest' chooses among the formats the app's platforms decode: add"
                                  + " 'platforms' at the top of the manifest with the oldest versions the app"
                                  + " supports, such as 'platforms: { ios: \"16.0\" }'", at: format.location)
            }
        }
    }

    private func parseDefaults(_ node: Node, into manifest: inout Manifest) {
        guard let fields = reader.mapping(node, what: "'defaults'") else { return }
        let known = reader.knownFields(fields, allowed: ManifestKeys.defaults, in: "'defaults'",
                                       misplaced: ManifestKeys.defaultsMisplaced)
        manifest.defaults.hadUnknownKeys = known.count < fields.count
        for field in known {
            switch field.key {
            case "presets": manifest.defaultPresets = parseNameList(field.value, what: "'defaults.presets'")
            case "placeholder": manifest.defaultPlaceholder = parsePlaceholder(field.value)
            default: parseVariantSetting(field, into: &manifest.defaults)
            }
        }
    }

    private func parsePresets(_ node: Node) -> [ManifestPreset] {
        guard let fields = reader.mapping(node, what: "'presets'") else { return [] }
        var presets: [ManifestPreset] = []
        for field in fields {
            guard Self.isValidPresetName(field.key) else {
                diagnostics.error("preset name '\(field.key)' must use only letters, digits, '-' and '_'",
                                  at: field.keyLocation)
                continue
            }
            let context = "preset '\(field.key)'"
            var settings = ManifestVariantSettings()
            if let settingFields = reader.mapping(field.value, what: context) {
                let known = reader.knownFields(settingFields, allowed: ManifestKeys.preset, in: context,
                                               misplaced: ManifestKeys.presetMisplaced)
                settings.hadUnknownKeys = known.count < settingFields.count
                for setting in known {
                    parseVariantSetting(setting, into: &settings)
                }
            }
            presets.append(ManifestPreset(name: Located(field.key, at: field.keyLocation), settings: settings))
        }
        return presets
    }

    static func isValidPresetName(_ name: String) -> Bool {
        !name.isEmpty && name.unicodeScalars.allSatisfy {
            $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || $0 == "-" || $0 == "_")
        }
    }

    /// A list of names (`presets: [thumb, card]`, or a single `presets: thumb`).
    func parseNameList(_ node: Node, what: String) -> Located<[Located<String>]>? {
        guard let items = reader.list(node, what: what) else { return nil }
        let names = items.compactMap { reader.string($0, what: "each of \(what)") }
        return Located(names, at: reader.location(node))
    }

    /// `placeholder: thumbhash`, `[thumbhash, blurhash]` or `none`; the average colour is always added.
    func parsePlaceholder(_ node: Node) -> Located<PlaceholderKinds>? {
        guard let items = reader.list(node, what: "'placeholder'") else { return nil }
        var kinds: PlaceholderKinds = .averageColor
        var sawNone = false
        for item in items {
            guard let name = reader.string(item, what: "'placeholder'") else { continue }
            let lowered = name.value.lowercased()
            if lowered == "none" {
                sawNone = true
            } else if let known = PlaceholderKinds.names.first(where: { $0.name == lowered }) {
                kinds.insert(known.kind)
            } else {
                let hint = ManifestSuggestions.hint(for: name.value, in: PlaceholderKinds.names.map(\.name) + ["none"])
                diagnostics.error("unknown placeholder '\(name.value)'\(hint); use none, thumbhash, blurhash"
                                  + " or a list of them", at: name.location)
            }
        }
        if sawNone, kinds != .averageColor {
            diagnostics.error("'placeholder' cannot combine 'none' with other kinds", at: reader.location(node))
        }
        return Located(kinds, at: reader.location(node))
    }

    /// A string with `${VAR}` references substituted, each problem reported at the reference.
    func substitutedString(_ node: Node, what: String) -> Located<String>? {
        guard let text = reader.string(node, what: what) else { return nil }
        switch environment.substitute(text.value) {
        case .success(let value):
            return Located(value, at: text.location)
        case .failure(let list):
            for problem in list.problems {
                let location = referenceLocation(in: node, offset: problem.offset)
                switch problem.kind {
                case .unset(let name):
                    diagnostics.error("environment variable '\(name)' is not set (used in \(what)); set it, or"
                                      + " give a default with '${\(name):-default}'", at: location)
                case .malformed(let reason):
                    diagnostics.error("\(what): \(reason); write '$$' for a literal '$'", at: location)
                }
            }
            return nil
        }
    }

    /// The location of the `$` at `offset` inside a scalar: exact when the scalar sits on one line
    /// (plain or quoted without escapes), the scalar's start otherwise.
    private func referenceLocation(in node: Node, offset: Int) -> ManifestLocation {
        let start = reader.location(node)
        guard case .scalar(let scalar) = node, start.line - 1 < sourceLines.count else { return start }
        let quoteWidth = scalar.style == .singleQuoted || scalar.style == .doubleQuoted ? 1 : 0
        let column = start.column + quoteWidth + offset
        let line = sourceLines[start.line - 1].unicodeScalars
        guard column - 1 + 2 <= line.count else { return start }
        let at = line.index(line.startIndex, offsetBy: column - 1)
        guard line[at...].starts(with: "${".unicodeScalars) else { return start }
        return ManifestLocation(file: start.file, line: start.line, column: column)
    }
}
