import WarmCache
import WarmCacheImaging

/// A problem with a combination of settings, found while expanding them into requests.
///
/// `fields` name the settings involved, most specific first; the reporter points at the first
/// of them written in the layer being checked (a preset, or an image entry's overrides).
struct PlanIssue: Hashable {
    enum Field: Hashable {
        case width, height, fit, gravity, background, formats, scales, processors, effort
        case lossless, progressive, palette, quality, qualityTarget, speed
    }

    var severity: ManifestDiagnostic.Severity
    var message: String
    var fields: [Field]
}

/// Expands merged variant settings into requests: the box x scales x formats cross product,
/// and checks that every combination can be made.
///
/// Built-in defaults for what no layer sets: `fit: inside`, `gravity: centre` (for cover),
/// `background: transparent` (for contain), `upscale: false`, `formats: [auto]`, `scales: [1]`,
/// no processors, encoder defaults for quality and options, `quality_target`
/// ``PerceptualQuality/defaultTarget`` for `quality: auto`.
enum PlanVariantResolver {
    /// WebP's limit, the smallest of the common formats', and far beyond any screen.
    static let maximumPixels = 16_383
    /// `formats` when no layer sets it (manifest.example.yml states it; a test keeps them equal).
    static let builtInFormats: [FormatChoice] = [.auto()]
    /// `scales` when no layer sets it.
    static let builtInScales = [1]

    /// - Parameter platforms: the manifest's `platforms:`, which `formats: [smallest]` needs.
    static func requests(for settings: ManifestVariantSettings, platforms: AppPlatforms?)
        -> (requests: [VariantRequest], issues: [PlanIssue]) {
        var issues: [PlanIssue] = []
        let width = settings.width?.value
        let height = settings.height?.value
        let kind = settings.fit?.value ?? .inside
        let fit: FitMode
        switch kind {
        case .inside: fit = .inside
        case .fill: fit = .fill
        case .cover: fit = .cover(settings.gravity?.value ?? .centre)
        case .contain: fit = .contain(background: settings.background?.value ?? .transparent)
        }
        // A misspelt size key was reported as unknown already; its missing side is no second problem.
        if kind != .inside, width == nil || height == nil, !settings.hadUnknownKeys {
            let set = [width.map { _ in "only 'width' is set" }, height.map { _ in "only 'height' is set" }]
                .compactMap { $0 }.first ?? "neither is set"
            issues.append(PlanIssue(severity: .error, message: "fit '\(kind.rawValue)' fills an exact box, so it needs"
                                    + " both 'width' and 'height' (\(set)); use 'fit: inside' to bound one side",
                                    fields: [.fit, .width, .height]))
        }
        if settings.gravity != nil, kind != .cover {
            issues.append(PlanIssue(severity: .warning, message: "'gravity' only applies to 'fit: cover'; this variant"
                                    + " uses 'fit: \(kind.rawValue)'", fields: [.gravity]))
        }
        if settings.background != nil, kind != .contain {
            issues.append(PlanIssue(severity: .warning, message: "'background' only applies to 'fit: contain' (use"
                                    + " '{ flatten: ... }' to fill transparency); this variant uses"
                                    + " 'fit: \(kind.rawValue)'", fields: [.background]))
        }

        // Without a box the source keeps its pixel size, so every scale would be the same image.
        var scales = settings.scales?.value.map(\.value) ?? Self.builtInScales
        if width == nil, height == nil { scales = Self.builtInScales }
        scales = scales.reduce(into: []) { if !$0.contains($1) { $0.append($1) } }
        for (name, side) in [("width", width), ("height", height)] {
            guard let side, let scale = scales.max(), side * scale > maximumPixels else { continue }
            issues.append(PlanIssue(severity: .error, message: "\(name) \(side) at scale \(scale) is \(side * scale)"
                                    + " pixels, more than the \(maximumPixels) a variant may have",
                                    fields: [name == "width" ? .width : .height, .scales]))
        }

        var formats = settings.formats?.value.map(\.value) ?? Self.builtInFormats
        if let index = formats.firstIndex(where: { if case .smallest = $0 { true } else { false } }) {
            if let platforms {
                formats[index] = platforms.smallest
            } else {
                formats.remove(at: index)  // the parser reported it where it was written
            }
        }
        let processors = settings.processors?.value.map(\.value) ?? []
        let probe = VariantSpec(width: width, height: height, fit: fit, format: .png, processors: processors)
        if probe.producesAlpha, formats.contains(.fixed(.jpeg)) {
            issues.append(alphaIssue(fit: fit, processors: processors))
        }
        issues += optionIssues(settings, formats: formats)
        issues += qualityIssues(settings, formats: formats, smallest: settings.formats?.value.contains {
            if case .smallest = $0.value { true } else { false }
        } ?? false)

        var requests: [VariantRequest] = []
        for scale in scales {
            for format in formats {
                let relevant = relevantFormats(format)
                let quality = settings.quality.filter { relevant.contains($0.key) }.mapValues(\.value)
                let request = VariantRequest(width: width, height: height, scale: scale, fit: fit,
                                             allowUpscale: settings.upscale?.value ?? false, format: format,
                                             quality: quality,
                                             qualityTarget: settings.qualityTarget?.value ?? PerceptualQuality.defaultTarget,
                                             options: options(settings, for: relevant), processors: processors)
                if !requests.contains(request) { requests.append(request) }
            }
        }
        return (requests, issues)
    }

    /// Quality settings that would have no effect: fixed qualities under `formats: [smallest]`
    /// (every candidate is encoded at `quality_target`), and a `quality_target` or a `speed`
    /// where every format has a fixed quality.
    private static func qualityIssues(_ settings: ManifestVariantSettings, formats: [FormatChoice],
                                      smallest: Bool) -> [PlanIssue] {
        let concrete = Set(formats.flatMap(relevantFormats))
        let fixed = settings.quality.filter { concrete.contains($0.key) && $0.value.value != .perceptual }
            .map { "\($0.key.rawValue) \($0.value.value)" }.sorted()
        if smallest, !fixed.isEmpty {
            return [PlanIssue(severity: .warning, message: "'formats: [smallest]' encodes every candidate at "
                              + "'quality_target', so 'quality' (\(fixed.joined(separator: ", "))) is ignored: remove it, "
                              + "or list the formats instead of smallest", fields: [.quality])]
        }
        let perceptual = concrete.contains { settings.quality[$0]?.value == .perceptual }
        var issues: [PlanIssue] = []
        if settings.qualityTarget != nil, !smallest, !perceptual, !fixed.isEmpty {
            issues.append(PlanIssue(severity: .warning, message: "'quality_target' only applies to 'quality: auto' and "
                                    + "'formats: [smallest]'; this variant has fixed qualities (\(fixed.joined(separator: ", "))), "
                                    + "so it is ignored: set 'quality: auto', or remove 'quality_target'",
                                    fields: [.qualityTarget]))
        }
        if settings.speed != nil, !smallest, !perceptual {
            issues.append(PlanIssue(severity: .warning, message: "'speed' only applies to 'quality: auto' and "
                                    + "'formats: [smallest]', so it is ignored here: set 'quality: auto', or remove 'speed'",
                                    fields: [.speed]))
        }
        return issues
    }

    /// The concrete formats a choice can become.
    static func relevantFormats(_ choice: FormatChoice) -> [ImageFormat] {
        choice.candidates
    }

    private static func alphaIssue(fit: FitMode, processors: [Processor]) -> PlanIssue {
        if processors.contains(where: \.introducesAlpha) {
            return PlanIssue(severity: .error, message: "rounded corners need transparency, which jpeg cannot store:"
                             + " use png, webp or avif (or auto) instead of jpeg, or add '{ flatten: \"#ffffff\" }'"
                             + " after 'round' to fill the corners", fields: [.formats, .processors])
        }
        return PlanIssue(severity: .error, message: "fit 'contain' pads with a transparent background"
                         + " (\(fit.background?.description ?? "transparent")), which jpeg cannot store: set an opaque"
                         + " 'background' such as \"#ffffff\", or use png, webp or avif (or auto) instead of jpeg",
                         fields: [.formats, .background, .fit])
    }
}
