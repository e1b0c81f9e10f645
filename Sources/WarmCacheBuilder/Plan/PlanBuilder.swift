import Foundation
import WarmCache

/// Expands a parsed ``Manifest`` into a ``WarmPlan``: resolves presets, applies precedence,
/// builds each source's variants, finds duplicates, and reports every impossible combination.
///
/// Precedence, lowest to highest: built-in defaults, `defaults:`, the preset, the image
/// entry's own keys. Each key replaces the one below it, except `quality` (merged per format)
/// and the encoder options (merged per option).
struct PlanBuilder {
    let manifest: Manifest
    let manifestURL: URL
    let diagnostics: ManifestDiagnostics

    private var presetsByName: [String: ManifestPreset] {
        Dictionary(manifest.presets.map { ($0.name.value, $0) }, uniquingKeysWith: { first, _ in first })
    }

    /// The plan, or `nil` if parts of the manifest were missing (the diagnostics say which).
    func build() -> WarmPlan? {
        let presetIssues = checkPresets()
        for name in manifest.defaultPresets?.value ?? [] where presetsByName[name.value] == nil {
            reportUnknownPreset(name)
        }
        var usedPresets: Set<String> = []
        let resolver = PlanSourceResolver(manifestDirectory: manifestURL.deletingLastPathComponent(),
                                          diagnostics: diagnostics)
        // Sources in the order listed, and where each identifier is in that list. Sources of one
        // entry share its variant list (one array, not a copy per source), so a `urls_from` file
        // of a million URLs costs a million small source values and nothing per variant.
        var sources: [PlannedSource] = []
        var positions: [SourceIdentifier: (index: Int, isKeyed: Bool)] = [:]
        var files: [String: PlanSourceCandidate] = [:]  // local path -> the first entry naming it
        for entry in manifest.images {
            let variants = variants(for: entry, presetIssues: presetIssues, used: &usedPresets)
            let placeholders = entry.placeholder?.value ?? manifest.defaultPlaceholder?.value ?? .averageColor
            resolver.forEachCandidate(of: entry) { candidate in
                if let first = positions[candidate.identifier] {
                    // The same image listed by several entries (say, in a thumbnail list and a
                    // card list) is one source with the union of their variants, fetched once.
                    // One identifier for two different images is an error.
                    guard sources[first.index].location == candidate.location else {
                        reportDuplicate(candidate, first: sources[first.index], firstIsKeyed: first.isKeyed)
                        return
                    }
                    for variant in variants where !sources[first.index].variants.contains(variant) {
                        sources[first.index].variants.append(variant)
                    }
                    sources[first.index].placeholders.formUnion(placeholders)
                    return
                }
                if case .file(let url) = candidate.location {
                    let path = url.standardizedFileURL.resolvingSymlinksInPath().path
                    if let first = files[path] {
                        diagnostics.warning("'\(candidate.identifier)' is the same file as '\(first.identifier)': it "
                                            + "will be baked twice, under both names; write the path one way (or "
                                            + "give both the same 'key')",
                                            at: candidate.listedAt, notes: [("first listed here", first.listedAt)])
                    } else {
                        files[path] = candidate
                    }
                }
                positions[candidate.identifier] = (sources.count, candidate.isKeyed)
                sources.append(PlannedSource(identifier: candidate.identifier, location: candidate.location,
                                             variants: variants, placeholders: placeholders,
                                             manifestLocation: candidate.listedAt))
            }
        }
        positions = [:]
        sources.sort { $0.identifier < $1.identifier }
        for preset in manifest.presets where !usedPresets.contains(preset.name.value) {
            diagnostics.warning("preset '\(preset.name.value)' is not used by any image", at: preset.name.location)
        }
        if let location = manifest.imagesLocation, manifest.images.isEmpty {
            diagnostics.warning("'images' is empty: the bundle will hold no images", at: location)
        }
        guard let output = manifest.output else { return nil }
        let outputURL = output.value.hasPrefix("/") ? URL(fileURLWithPath: output.value)
            : manifestURL.deletingLastPathComponent().appendingPathComponent(output.value)
        var plan = WarmPlan(manifestURL: manifestURL, output: outputURL.standardizedFileURL, fetch: manifest.fetch,
                            sources: sources, warnings: [])
        plan.budget = manifest.budget?.value
        return plan
    }

    /// Checks each preset on top of the defaults, reporting at the preset. Returns the issues
    /// per preset, so entries only report what their own overrides add.
    private func checkPresets() -> [String: Set<PlanIssue>] {
        var result: [String: Set<PlanIssue>] = [:]
        for preset in manifest.presets {
            let merged = manifest.defaults.overlaid(by: preset.settings)
            let issues = PlanVariantResolver.requests(for: merged, platforms: manifest.platforms?.value).issues
            report(issues, layer: preset.settings, anchor: preset.name.location, context: "preset '\(preset.name.value)'")
            result[preset.name.value] = Set(issues)
        }
        return result
    }

    private func variants(for entry: ManifestImageEntry, presetIssues: [String: Set<PlanIssue>],
                          used: inout Set<String>) -> [PlannedVariant] {
        if entry.hasOwnBox {
            let merged = manifest.defaults.overlaid(by: entry.overrides)
            let (requests, issues) = PlanVariantResolver.requests(for: merged, platforms: manifest.platforms?.value)
            report(issues, layer: entry.overrides, anchor: entry.location, context: "image entry")
            return requests.map { PlannedVariant(preset: PlannedVariant.entryPreset, request: $0) }
        }
        guard let names = entry.presets ?? manifest.defaultPresets else {
            if entry.hadUnknownKeys { return [] }
            diagnostics.error("image entry has no variants: list 'presets' (or set 'defaults.presets'), or give the"
                              + " entry its own 'width'/'height'", at: entry.location)
            return []
        }
        if names.value.isEmpty {
            diagnostics.error("'presets' is empty; list at least one preset", at: names.location)
        }
        var variants: [PlannedVariant] = []
        var listed: Set<String> = []
        for name in names.value {
            guard let preset = presetsByName[name.value] else {
                reportUnknownPreset(name)
                continue
            }
            used.insert(name.value)
            guard listed.insert(name.value).inserted else {
                diagnostics.warning("preset '\(name.value)' is listed twice", at: name.location)
                continue
            }
            let merged = manifest.defaults.overlaid(by: preset.settings).overlaid(by: entry.overrides)
            let (requests, issues) = PlanVariantResolver.requests(for: merged, platforms: manifest.platforms?.value)
            let added = issues.filter { !(presetIssues[name.value] ?? []).contains($0) }
            report(added, layer: entry.overrides, anchor: name.location,
                   context: "preset '\(name.value)' with this entry's settings")
            for request in requests where !variants.contains(where: { $0.request == request }) {
                variants.append(PlannedVariant(preset: name.value, request: request))
            }
        }
        return variants
    }

    private func reportUnknownPreset(_ name: Located<String>) {
        let known = manifest.presets.map(\.name.value)
        let hint = ManifestSuggestions.hint(for: name.value, in: known)
        let list = known.isEmpty ? "no presets are defined" : "defined presets: " + known.joined(separator: ", ")
        diagnostics.error("unknown preset '\(name.value)'\(hint)" + (hint.isEmpty ? "; \(list)" : ""),
                          at: name.location)
    }

    /// Reports issues at the first involved field written in `layer`, else at `anchor`. Warnings
    /// are only reported when `layer` itself wrote one of their fields.
    private func report(_ issues: [PlanIssue], layer: ManifestVariantSettings, anchor: ManifestLocation,
                        context: String) {
        for issue in issues {
            let written = issue.fields.lazy.compactMap { layer.location(of: $0) }.first
            switch issue.severity {
            case .error: diagnostics.error("\(context): \(issue.message)", at: written ?? anchor)
            case .warning: if let written { diagnostics.warning("\(context): \(issue.message)", at: written) }
            case .note: break
            }
        }
    }

    private func reportDuplicate(_ candidate: PlanSourceCandidate, first: PlannedSource, firstIsKeyed: Bool) {
        var message = "duplicate source '\(candidate.identifier)': two different images cannot share one identifier"
        if candidate.isKeyed || firstIsKeyed {
            message += " (two entries use the same 'key'; give each its own)"
        }
        diagnostics.error(message, at: candidate.listedAt, notes: [("first listed here", first.manifestLocation)])
    }
}

extension ManifestVariantSettings {
    /// Where this layer wrote `field`, or `nil` if it did not.
    func location(of field: PlanIssue.Field) -> ManifestLocation? {
        switch field {
        case .width: return width?.location
        case .height: return height?.location
        case .fit: return fit?.location
        case .gravity: return gravity?.location
        case .background: return background?.location
        case .formats: return formats?.location
        case .scales: return scales?.location
        case .processors: return processors?.location
        case .effort: return effort?.location
        case .lossless: return lossless?.location
        case .progressive: return progressive?.location
        case .palette: return palette?.location
        case .quality: return quality.values.map(\.location).min()
        case .qualityTarget: return qualityTarget?.location
        case .speed: return speed?.location
        }
    }
}
