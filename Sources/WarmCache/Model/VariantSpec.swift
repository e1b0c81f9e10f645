/// One encoded rendition of a source image: its box in points, scale, fit, format and treatment.
///
/// A spec is what the manifest asks for and what the index records. Its ``VariantKey`` (together
/// with the source) is the cache key, so two specs that differ in anything that changes the
/// output bytes are two different variants.
public struct VariantSpec: Hashable, Sendable, Codable {
    /// Box width in points, or `nil` to let the height (or the source) decide.
    public var width: Int?
    /// Box height in points, or `nil` to let the width (or the source) decide.
    public var height: Int?
    /// Device scale: pixels = points x scale.
    public var scale: Int
    /// How the source is sized into the box.
    public var fit: FitMode
    /// When `false` (the default) a box larger than the source yields the source's size.
    public var allowUpscale: Bool
    /// The encoded format.
    public var format: ImageFormat
    /// Encoder quality 1–100, or `nil` for the encoder's default (lossless formats ignore it).
    public var quality: Int?
    /// Perceptual quality: the SSIMULACRA2 score (0–100; 90 ≈ visually lossless, 80 high, 70
    /// medium) the encoding must reach. The builder encodes at the lowest encoder quality that
    /// reaches it; the key names the target, not the setting found. `nil` for a fixed
    /// ``quality``; never set together with it.
    public var qualityTarget: Int?
    /// Encoder settings beyond format and quality; only those set explicitly are part of the key.
    public var options: EncodingOptions
    /// Applied in order after sizing.
    public var processors: [Processor]

    /// A variant specification, as the manifest's `width`, `height`, `scales`, `fit`, `formats`,
    /// `quality` and `processors` describe it. Apps need one only to build a ``VariantKey`` for an
    /// exact lookup; best-fit lookups take a size and a scale instead.
    ///
    /// - Parameters:
    ///   - width: Box width in points, or `nil`.
    ///   - height: Box height in points, or `nil`.
    ///   - scale: Device scale (1, 2, 3): pixels = points × scale.
    ///   - fit: How the source is sized into the box (``FitMode/inside`` by default).
    ///   - allowUpscale: Whether a source smaller than the box is enlarged (no by default).
    ///   - format: The encoded format.
    ///   - quality: A fixed encoder quality 1–100, or `nil` for the encoder's default.
    ///   - qualityTarget: A perceptual target (SSIMULACRA2) instead of a fixed quality.
    ///   - options: Encoder settings beyond format and quality.
    ///   - processors: Pixel operations applied after sizing, in order.
    public init(width: Int?, height: Int?, scale: Int = 1, fit: FitMode = .inside, allowUpscale: Bool = false,
                format: ImageFormat, quality: Int? = nil, qualityTarget: Int? = nil,
                options: EncodingOptions = .default, processors: [Processor] = []) {
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

    /// The requested box in pixels (points x scale); `nil` sides are unconstrained.
    package var pixelBox: (width: Int?, height: Int?) {
        (width.map { $0 * scale }, height.map { $0 * scale })
    }

    /// Whether the variant's output has transparency that a format without alpha would lose.
    package var producesAlpha: Bool {
        var alpha = false
        for processor in processors {
            if processor.introducesAlpha { alpha = true }
            if case .flatten = processor { alpha = false }
        }
        if case .contain(let background) = fit, background.alpha < 255 { alpha = true }
        return alpha
    }
}
