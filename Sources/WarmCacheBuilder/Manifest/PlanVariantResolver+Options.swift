import WarmCache
import WarmCacheImaging

/// Encoder options: which formats each applies to, and their per-format ranges.
///
/// An option is only written into a request for the formats it affects, so `progressive: true`
/// in `defaults` changes the keys of JPEG variants, not of WebP ones. The applicability follows
/// `EncodingOptions`' documentation.
extension PlanVariantResolver {
    static let losslessFormats: Set<ImageFormat> = [.webp, .avif, .heic, .jxl]
    static let progressiveFormats: Set<ImageFormat> = [.jpeg, .png, .gif]
    static let paletteFormats: Set<ImageFormat> = [.png, .gif]
    /// Formats without chroma planes to subsample.
    static let rgbOnlyFormats: Set<ImageFormat> = [.png, .gif]
    static let effortRanges: [ImageFormat: ClosedRange<Int>] = [.webp: 0...6, .avif: 0...9, .heic: 0...9, .jxl: 1...9,
                                                                .png: 0...9]

    static func options(_ settings: ManifestVariantSettings, for formats: [ImageFormat]) -> EncodingOptions {
        func applies(_ set: Set<ImageFormat>) -> Bool { formats.contains(where: set.contains) }
        var options = EncodingOptions()
        if applies(losslessFormats) { options.lossless = settings.lossless?.value }
        if applies(progressiveFormats) { options.progressive = settings.progressive?.value }
        if formats.contains(where: { !rgbOnlyFormats.contains($0) }) {
            options.chromaSubsampling = settings.chromaSubsampling?.value
        }
        if applies(Set(effortRanges.keys)) { options.effort = settings.effort?.value }
        if applies(paletteFormats) { options.palette = settings.palette?.value }
        options.keepICCProfile = settings.keepICCProfile?.value
        return options
    }

    /// Effort out of a format's range (an error), and options that no listed format uses (a warning).
    static func optionIssues(_ settings: ManifestVariantSettings, formats: [FormatChoice]) -> [PlanIssue] {
        let concrete = formats.flatMap(relevantFormats)
        var issues: [PlanIssue] = []
        if let effort = settings.effort?.value {
            for format in ImageFormat.allCases where concrete.contains(format) {
                guard let range = effortRanges[format], !range.contains(effort) else { continue }
                issues.append(PlanIssue(severity: .error, message: "effort \(effort) is out of range for"
                                        + " \(format.rawValue) (\(range.lowerBound)–\(range.upperBound))",
                                        fields: [.effort, .formats]))
            }
        }
        let unused: [(String, Bool, Set<ImageFormat>, PlanIssue.Field)] = [
            ("lossless", settings.lossless != nil, losslessFormats, .lossless),
            ("progressive", settings.progressive != nil, progressiveFormats, .progressive),
            ("palette", settings.palette != nil, paletteFormats, .palette),
            ("effort", settings.effort != nil, Set(effortRanges.keys), .effort),
        ]
        let listed = formats.map(\.description).joined(separator: ", ")
        for (name, isSet, applicable, field) in unused where isSet && !concrete.contains(where: applicable.contains) {
            let names = ImageFormat.allCases.filter(applicable.contains).map(\.rawValue).joined(separator: ", ")
            issues.append(PlanIssue(severity: .warning, message: "'\(name)' has no effect on \(listed); it applies"
                                    + " to \(names)", fields: [field]))
        }
        return issues
    }
}
