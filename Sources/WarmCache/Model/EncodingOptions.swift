/// Encoder settings beyond format and quality that change the bytes of a variant.
///
/// `nil` means "the engine's default". Only settings that were set explicitly appear in the
/// variant's key, in a fixed order, so adding a new option later never changes existing keys.
public struct EncodingOptions: Hashable, Sendable, Codable {
    /// Lossless encoding (WebP, AVIF, JPEG XL, HEIC).
    public var lossless: Bool?
    /// Progressive / interlaced output (JPEG, PNG, GIF).
    public var progressive: Bool?
    /// Chroma subsampling: `true` forces 4:2:0, `false` keeps full chroma (4:4:4).
    public var chromaSubsampling: Bool?
    /// Encoder effort / speed trade-off (WebP 0–6, AVIF/HEIC 0–9, JPEG XL 1–9, PNG compression 0–9).
    public var effort: Int?
    /// Quantise to a palette (PNG, GIF).
    public var palette: Bool?
    /// Keep the source's ICC profile instead of converting to plain sRGB without a profile.
    public var keepICCProfile: Bool?
    /// How much CPU a quality target may spend for fewer bytes (variants with a quality target
    /// only; ``SearchSpeed/balanced`` when not set).
    public var speed: SearchSpeed?

    /// Options with only the given settings set; every `nil` leaves the encoder's default and stays
    /// out of the variant's key.
    public init(lossless: Bool? = nil, progressive: Bool? = nil, chromaSubsampling: Bool? = nil,
                effort: Int? = nil, palette: Bool? = nil, keepICCProfile: Bool? = nil, speed: SearchSpeed? = nil) {
        self.lossless = lossless
        self.progressive = progressive
        self.chromaSubsampling = chromaSubsampling
        self.effort = effort
        self.palette = palette
        self.keepICCProfile = keepICCProfile
        self.speed = speed
    }

    /// No setting given: every encoder uses its defaults.
    public static let `default` = EncodingOptions()

    /// Canonical tokens, in fixed order: `lossless`/`lossy`, `progressive`/`baseline`,
    /// `sub`/`nosub`, `e<N>`, `palette`/`truecolor`, `icc`/`noicc`, `fast`/`balanced`/`smallest`.
    package var tokens: [String] {
        var tokens: [String] = []
        if let lossless { tokens.append(lossless ? "lossless" : "lossy") }
        if let progressive { tokens.append(progressive ? "progressive" : "baseline") }
        if let chromaSubsampling { tokens.append(chromaSubsampling ? "sub" : "nosub") }
        if let effort { tokens.append("e\(effort)") }
        if let palette { tokens.append(palette ? "palette" : "truecolor") }
        if let keepICCProfile { tokens.append(keepICCProfile ? "icc" : "noicc") }
        if let speed { tokens.append(speed.rawValue) }
        return tokens
    }

    /// Parses ``tokens``; the tokens must be in canonical order with no repeats.
    init?(tokens: [String]) {
        var options = EncodingOptions()
        var lastRank = -1
        for token in tokens {
            let rank: Int
            switch token {
            case "lossless", "lossy": rank = 0; options.lossless = token == "lossless"
            case "progressive", "baseline": rank = 1; options.progressive = token == "progressive"
            case "sub", "nosub": rank = 2; options.chromaSubsampling = token == "sub"
            case "palette", "truecolor": rank = 4; options.palette = token == "palette"
            case "icc", "noicc": rank = 5; options.keepICCProfile = token == "icc"
            case "fast", "balanced", "smallest": rank = 6; options.speed = SearchSpeed(rawValue: token)
            default:
                guard token.hasPrefix("e"), let effort = Int(token.dropFirst()), "e\(effort)" == token, effort >= 0
                else { return nil }
                rank = 3
                options.effort = effort
            }
            guard rank > lastRank else { return nil }
            lastRank = rank
        }
        self = options
    }
}

/// How hard a quality target (`quality: auto`, `formats: [smallest]`) works for fewer bytes: the
/// CPU a warm spends against the bytes it ships. Each level reaches the same quality target;
/// `docs/performance.md` measures what each costs and saves.
public enum SearchSpeed: String, CaseIterable, Sendable, Hashable, Codable {
    /// A quick estimate: one candidate format for each larger variant, chosen at a fixed probe
    /// size, and the fastest AVIF setting. The most bytes of the three (on photos about 1.5×
    /// `smallest`'s, for a tenth of its CPU).
    case fast
    /// The default: larger variants try only the formats the probe says can win, with a quicker
    /// AVIF setting. On photos about 1.1× `smallest`'s bytes for a fifth of its CPU.
    case balanced
    /// Every candidate format searched at every size with AVIF's slowest setting: the fewest
    /// bytes, for about five times `balanced`'s CPU.
    case smallest

    /// The level a variant with a quality target gets when its manifest names none.
    public static let `default` = SearchSpeed.balanced
}
