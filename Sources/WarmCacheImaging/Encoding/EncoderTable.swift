import WarmCache

/// A setting a variant can ask of an encoder, named as in manifests.
public enum EncoderSetting: String, CaseIterable, Sendable, Hashable {
    case quality, lossless, progressive
    case chromaSubsampling = "chroma_subsampling"
    case effort, palette
    case keepICC = "keep_icc"
}

/// The encoder capability table: for each output format, which settings its encoder honours,
/// their valid ranges and their defaults.
///
/// This is the one statement of those facts. Manifest validation checks effort against
/// ``effortRange(_:)``; ``canonical(_:)`` drops from a spec every setting its format's encoder
/// does not use, so a cache key never names one; ``EncoderSettings`` takes its ranges and
/// ``EncoderDefaults`` its defaults from here; `docs/imaging.md` prints ``markdown``
/// (a test keeps the two equal).
public enum EncoderTable {
    /// One format's row.
    public struct Row: Sendable, Hashable {
        public let format: ImageFormat
        /// Valid quality and its default, or `nil` when the encoder has no quality setting.
        public let quality: (range: ClosedRange<Int>, default: Int)?
        /// Valid effort and its default, or `nil` when the encoder has no effort setting.
        public let effort: (range: ClosedRange<Int>, default: Int)?
        /// On/off settings the encoder honours (all off by default; subsampling is automatic).
        public let switches: Set<EncoderSetting>
        /// What the settings mean for this encoder.
        public let notes: String

        public static func == (lhs: Row, rhs: Row) -> Bool { lhs.format == rhs.format }
        public func hash(into hasher: inout Hasher) { hasher.combine(format) }
    }

    public static let rows: [Row] = [
        Row(format: .jpeg, quality: (1...100, 80), effort: nil, switches: [.progressive, .chromaSubsampling, .keepICC],
            notes: "optimised Huffman tables; baseline unless progressive; chroma 4:2:0 below quality 90 unless set"),
        Row(format: .png, quality: (1...100, 100), effort: (0...9, 6), switches: [.progressive, .palette, .keepICC],
            notes: "always lossless; effort is the zlib level; quality applies only with palette (libimagequant)"),
        Row(format: .webp, quality: (1...100, 80), effort: (0...6, 4),
            switches: [.lossless, .chromaSubsampling, .keepICC],
            notes: "lossy is always 4:2:0: chroma_subsampling false turns on sharp RGB to YUV"),
        Row(format: .avif, quality: (1...100, 55), effort: (0...9, 4),
            switches: [.lossless, .chromaSubsampling, .keepICC],
            notes: "AV1 in HEIF, 8-bit; quality is ignored when lossless"),
        Row(format: .heic, quality: (1...100, 55), effort: (0...9, 2),
            switches: [.lossless, .chromaSubsampling, .keepICC],
            notes: "HEVC in HEIF, 8-bit; quality is ignored when lossless"),
        Row(format: .jxl, quality: (1...100, 80), effort: (3...9, 5), switches: [.lossless, .keepICC],
            notes: "effort 3–9 is what libvips 8.14 accepts; quality is ignored when lossless"),
        Row(format: .gif, quality: nil, effort: (1...10, 7), switches: [.progressive],
            notes: "always a palette; effort is the quantisation effort; no ICC profile"),
    ]

    public static func row(_ format: ImageFormat) -> Row {
        rows.first { $0.format == format }!
    }

    /// Whether `format`'s encoder honours `setting` (quality and effort: whether it has them at all).
    public static func honours(_ setting: EncoderSetting, _ format: ImageFormat) -> Bool {
        let row = row(format)
        switch setting {
        case .quality: return row.quality != nil
        case .effort: return row.effort != nil
        default: return row.switches.contains(setting)
        }
    }

    /// The formats whose encoders honour `setting`, in ``ImageFormat/allCases`` order.
    public static func formats(honouring setting: EncoderSetting) -> [ImageFormat] {
        ImageFormat.allCases.filter { honours(setting, $0) }
    }

    /// The effort `format` accepts, or `nil` if it has no effort setting.
    public static func effortRange(_ format: ImageFormat) -> ClosedRange<Int>? {
        row(format).effort?.range
    }

    /// Every effort some format accepts (what a manifest may write before formats are known).
    public static let anyEffort: ClosedRange<Int> = {
        let ranges = rows.compactMap(\.effort?.range)
        return ranges.map(\.lowerBound).min()!...ranges.map(\.upperBound).max()!
    }()

    /// `spec` with only the settings its format's encoder uses: options it ignores are removed,
    /// effort is clamped to the format's range, and quality is dropped where the encoder ignores it
    /// (GIF; PNG without palette; AVIF, HEIC and JPEG XL when lossless); a quality target
    /// likewise, and also for lossless WebP; `keep_icc: false`, the default, is dropped too. Two
    /// specs that encode to the same bytes this way get the same key.
    public static func canonical(_ spec: VariantSpec) -> VariantSpec {
        var spec = spec
        let format = spec.format
        var options = spec.options
        if !honours(.lossless, format) { options.lossless = nil }
        if !honours(.progressive, format) { options.progressive = nil }
        if !honours(.chromaSubsampling, format) { options.chromaSubsampling = nil }
        if !honours(.palette, format) { options.palette = nil }
        if !honours(.keepICC, format) || options.keepICCProfile == false { options.keepICCProfile = nil }
        if let effort = options.effort {
            options.effort = effortRange(format).map { min($0.upperBound, max($0.lowerBound, effort)) }
        }
        spec.options = options
        let usesQuality: Bool
        switch format {
        case .png: usesQuality = options.palette == true
        case .avif, .heic, .jxl: usesQuality = options.lossless != true
        default: usesQuality = honours(.quality, format)
        }
        // A target needs a lossy encoding to search: lossless WebP's quality is a compression effort.
        let searchesQuality = usesQuality && options.lossless != true
        if let quality = spec.quality {
            spec.quality = usesQuality ? min(100, max(1, quality)) : nil
        }
        if let target = spec.qualityTarget {
            let range = PerceptualQuality.targetRange
            spec.qualityTarget = searchesQuality ? min(range.upperBound, max(range.lowerBound, target)) : nil
            spec.quality = nil
        }
        // The speed only steers a quality target's search; its default names nothing.
        if spec.qualityTarget == nil || spec.options.speed == .default { spec.options.speed = nil }
        return spec
    }

    /// The table as Markdown, as `docs/imaging.md` shows it.
    public static var markdown: String {
        let switches: [EncoderSetting] = [.lossless, .progressive, .chromaSubsampling, .palette, .keepICC]
        var lines = ["| format | quality (default) | effort (default) | "
                     + switches.map { "`\($0.rawValue)`" }.joined(separator: " | ") + " | notes |",
                     "|---|---|---|" + String(repeating: "---|", count: switches.count + 1)]
        for row in rows {
            func range(_ value: (range: ClosedRange<Int>, default: Int)?) -> String {
                value.map { "\($0.range.lowerBound)–\($0.range.upperBound) (\($0.default))" } ?? "–"
            }
            let marks = switches.map { row.switches.contains($0) ? "yes" : "–" }
            lines.append("| `\(row.format.rawValue)` | \(range(row.quality)) | \(range(row.effort)) | "
                         + marks.joined(separator: " | ") + " | \(row.notes) |")
        }
        return lines.joined(separator: "\n")
    }
}
