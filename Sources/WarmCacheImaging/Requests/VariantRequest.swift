import WarmCache

/// The output format a request asks for: a fixed format, or `auto`, which the engine resolves
/// per source once it knows whether the output has transparency.
public enum FormatChoice: Hashable, Sendable, CustomStringConvertible {
    case fixed(ImageFormat)
    /// `opaque` for images without transparency, `alpha` (a format with alpha) otherwise.
    case auto(opaque: ImageFormat = .jpeg, alpha: ImageFormat = .png)

    public var description: String {
        switch self {
        case .fixed(let format): return format.rawValue
        case .auto: return "auto"
        }
    }
}

/// What a manifest asks for, before it meets a source: like ``VariantSpec`` but with a format
/// choice and a quality per format. ``resolve(sourceHasAlpha:)`` turns it into the concrete
/// spec whose ``VariantKey`` the bundle stores.
public struct VariantRequest: Hashable, Sendable {
    public var width: Int?
    public var height: Int?
    public var scale: Int
    public var fit: FitMode
    public var allowUpscale: Bool
    public var format: FormatChoice
    /// Quality per output format; formats missing here use the encoder's default.
    public var quality: [ImageFormat: Int]
    public var options: EncodingOptions
    public var processors: [Processor]

    public init(width: Int?, height: Int?, scale: Int = 1, fit: FitMode = .inside, allowUpscale: Bool = false,
                format: FormatChoice, quality: [ImageFormat: Int] = [:], options: EncodingOptions = .default,
                processors: [Processor] = []) {
        self.width = width
        self.height = height
        self.scale = scale
        self.fit = fit
        self.allowUpscale = allowUpscale
        self.format = format
        self.quality = quality
        self.options = options
        self.processors = processors
    }

    /// The concrete spec for a source. `auto` picks the alpha format when the source has
    /// transparency or the request's processors or fit produce it (and no `flatten` removes it).
    /// Settings the chosen format's encoder does not use are dropped (``EncoderTable/canonical(_:)``),
    /// so the key names only what the encoder did.
    public func resolve(sourceHasAlpha: Bool) -> VariantSpec {
        var spec = VariantSpec(width: width, height: height, scale: scale, fit: fit, allowUpscale: allowUpscale,
                               format: .jpeg, quality: nil, options: options, processors: processors)
        switch format {
        case .fixed(let fixed):
            spec.format = fixed
        case .auto(let opaque, let alpha):
            spec.format = outputHasAlpha(sourceHasAlpha: sourceHasAlpha, spec: spec) ? alpha : opaque
        }
        spec.quality = quality[spec.format]
        return EncoderTable.canonical(spec)
    }

    private func outputHasAlpha(sourceHasAlpha: Bool, spec: VariantSpec) -> Bool {
        var alpha = sourceHasAlpha
        for processor in processors {
            if processor.introducesAlpha { alpha = true }
            if case .flatten = processor { alpha = false }
        }
        if case .contain(let background) = fit, background.alpha < 255 { alpha = true }
        return alpha
    }
}
