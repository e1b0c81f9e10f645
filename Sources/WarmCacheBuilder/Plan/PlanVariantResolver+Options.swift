import WarmCache
import WarmCacheImaging

/// Encoder options: which formats each applies to, and their per-format ranges, as
/// ``EncoderTable`` states them.
///
/// An option is only written into a request for the formats it affects, so `progressive: true`
/// in `defaults` changes the keys of JPEG variants, not of WebP ones; resolving a request for a
/// source then keeps only what the concrete format's encoder uses (``EncoderTable/canonical(_:)``).
extension PlanVariantResolver {
    static func options(_ settings: ManifestVariantSettings, for formats: [ImageFormat]) -> EncodingOptions {
        func applies(_ setting: EncoderSetting) -> Bool { formats.contains { EncoderTable.honours(setting, $0) } }
        var options = EncodingOptions()
        if applies(.lossless) { options.lossless = settings.lossless?.value }
        if applies(.progressive) { options.progressive = settings.progressive?.value }
        if applies(.chromaSubsampling) { options.chromaSubsampling = settings.chromaSubsampling?.value }
        if applies(.effort) { options.effort = settings.effort?.value }
        if applies(.palette) { options.palette = settings.palette?.value }
        if applies(.keepICC) { options.keepICCProfile = settings.keepICCProfile?.value }
        options.speed = settings.speed?.value  // resolving a request keeps it for quality targets only
        return options
    }

    /// Effort out of a format's range (an error), and options that no listed format uses (a warning).
    static func optionIssues(_ settings: ManifestVariantSettings, formats: [FormatChoice]) -> [PlanIssue] {
        let concrete = formats.flatMap(relevantFormats)
        var issues: [PlanIssue] = []
        if let effort = settings.effort?.value {
            for format in ImageFormat.allCases where concrete.contains(format) {
                guard let range = EncoderTable.effortRange(format), !range.contains(effort) else { continue }
                issues.append(PlanIssue(severity: .error, message: "effort \(effort) is out of range for"
                                        + " \(format.rawValue) (\(range.lowerBound)–\(range.upperBound))",
                                        fields: [.effort, .formats]))
            }
        }
        let unused: [(EncoderSetting, Bool, PlanIssue.Field)] = [
            (.lossless, settings.lossless != nil, .lossless),
            (.progressive, settings.progressive != nil, .progressive),
            (.palette, settings.palette != nil, .palette),
            (.effort, settings.effort != nil, .effort),
        ]
        let listed = formats.map(\.description).joined(separator: ", ")
        for (setting, isSet, field) in unused
        where isSet && !concrete.contains(where: { EncoderTable.honours(setting, $0) }) {
            let names = EncoderTable.formats(honouring: setting).map(\.rawValue).joined(separator: ", ")
            issues.append(PlanIssue(severity: .warning, message: "'\(setting.rawValue)' has no effect on \(listed);"
                                    + " it applies to \(names)", fields: [field]))
        }
        return issues
    }
}
