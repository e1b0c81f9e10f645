import WarmCache

/// The output format a request asks for: a fixed format, `auto`, which the engine resolves per
/// source once it knows whether the output has transparency, or `smallest`, which encodes the
/// variant in each candidate format at its quality target and keeps the smallest file.
public enum FormatChoice: Hashable, Sendable, CustomStringConvertible {
    case fixed(ImageFormat)
    /// `opaque` for images without transparency, `alpha` (a format with alpha) otherwise.
    case auto(opaque: ImageFormat = .jpeg, alpha: ImageFormat = .png)
    /// The smallest encoding among `opaque` (or `alpha`, for an output with transparency), each
    /// at the variant's quality target. The candidates are the formats every platform the app
    /// supports decodes, most likely winner first; a manifest lists them with `platforms:`.
    case smallest(opaque: [ImageFormat], alpha: [ImageFormat])

    public var description: String {
        switch self {
        case .fixed(let format): return format.rawValue
        case .auto: return "auto"
        case .smallest: return "smallest"
        }
    }

    /// The concrete formats this choice can become.
    public var candidates: [ImageFormat] {
        switch self {
        case .fixed(let format): return [format]
        case .auto(let opaque, let alpha): return [opaque, alpha]
        case .smallest(let opaque, let alpha): return opaque + alpha.filter { !opaque.contains($0) }
        }
    }
}

/// How the encoder quality of one format is chosen. In JSON (and manifests) a number, or `"auto"`.
public enum QualitySetting: Hashable, Sendable, CustomStringConvertible, Codable, ExpressibleByIntegerLiteral {
    /// This encoder quality, 1–100.
    case fixed(Int)
    /// The lowest encoder quality whose SSIMULACRA2 score reaches the variant's quality target
    /// (`quality: auto` in a manifest).
    case perceptual

    public var description: String {
        switch self {
        case .fixed(let quality): return String(quality)
        case .perceptual: return "auto"
        }
    }

    public init(integerLiteral value: Int) {
        self = .fixed(value)
    }

    public init(from decoder: any Swift.Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let quality = try? container.decode(Int.self) {
            self = .fixed(quality)
        } else if try container.decode(String.self) == "auto" {
            self = .perceptual
        } else {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "a quality is a number or \"auto\"")
        }
    }

    public func encode(to encoder: any Swift.Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .fixed(let quality): try container.encode(quality)
        case .perceptual: try container.encode("auto")
        }
    }
}

/// What a manifest asks for, before it meets a source: like ``VariantSpec`` but with a format
/// choice and a quality setting per format. ``candidates(sourceHasAlpha:)`` turns it into the
/// concrete specs whose ``VariantKey`` the bundle stores.
public struct VariantRequest: Hashable, Sendable {
    public var width: Int?
    public var height: Int?
    public var scale: Int
    public var fit: FitMode
    public var allowUpscale: Bool
    public var format: FormatChoice
    /// Quality per output format; formats missing here use the encoder's default.
    public var quality: [ImageFormat: QualitySetting]
    /// The SSIMULACRA2 score a ``QualitySetting/perceptual`` format must reach.
    public var qualityTarget: Int
    public var options: EncodingOptions
    public var processors: [Processor]

    public init(width: Int?, height: Int?, scale: Int = 1, fit: FitMode = .inside, allowUpscale: Bool = false,
                format: FormatChoice, quality: [ImageFormat: QualitySetting] = [:],
                qualityTarget: Int = PerceptualQuality.defaultTarget, options: EncodingOptions = .default,
                processors: [Processor] = []) {
        self.width = width
        self.height = height
        self.scale = scale
        self.fit = fit
        self.allowUpscale = allowUpscale
        self.format = format
        self.quality = quality
        self.qualityTarget = qualityTarget
        self.options = options
        self.processors = processors
    }

    /// The concrete spec for a source (for `smallest`, its first candidate). `auto` picks the
    /// alpha format when the source has transparency or the request's processors or fit produce
    /// it (and no `flatten` removes it). Settings the chosen format's encoder does not use are
    /// dropped (``EncoderTable/canonical(_:)``), so the key names only what the encoder did.
    public func resolve(sourceHasAlpha: Bool) -> VariantSpec {
        candidates(sourceHasAlpha: sourceHasAlpha)[0]
    }

    /// The specs one variant may become for a source: one, or for `smallest` one per candidate
    /// format, most likely winner first. The render keeps the one that encodes smallest.
    public func candidates(sourceHasAlpha: Bool) -> [VariantSpec] {
        let alpha = outputHasAlpha(sourceHasAlpha: sourceHasAlpha)
        let formats: [ImageFormat]
        switch format {
        case .fixed(let fixed): formats = [fixed]
        case .auto(let opaque, let alphaFormat): formats = [alpha ? alphaFormat : opaque]
        case .smallest(let opaque, let alphaFormats): formats = alpha ? alphaFormats : opaque
        }
        return formats.map(spec(for:))
    }

    private func spec(for format: ImageFormat) -> VariantSpec {
        var spec = VariantSpec(width: width, height: height, scale: scale, fit: fit, allowUpscale: allowUpscale,
                               format: format, options: options, processors: processors)
        let setting: QualitySetting? = if case .smallest = self.format { .perceptual } else { quality[format] }
        switch setting {
        case .fixed(let value): spec.quality = value
        case .perceptual: spec.qualityTarget = qualityTarget
        case nil: break
        }
        return EncoderTable.canonical(spec)
    }

    private func outputHasAlpha(sourceHasAlpha: Bool) -> Bool {
        var alpha = sourceHasAlpha
        for processor in processors {
            if processor.introducesAlpha { alpha = true }
            if case .flatten = processor { alpha = false }
        }
        if case .contain(let background) = fit, background.alpha < 255 { alpha = true }
        return alpha
    }
}
