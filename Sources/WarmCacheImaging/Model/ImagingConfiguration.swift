import WarmCache

/// Limits, strictness and encoder defaults of one ``ImagingEngine``. Process-wide libvips
/// settings (threads, malloc, vector paths) are ``ImagingRuntime/Settings``.
public struct ImagingConfiguration: Sendable, Hashable, Codable {
    /// Largest source accepted, in pixels (width x height of the first frame), checked from the
    /// header before anything is decoded. Also caps the size of any single output.
    public var maxPixels: Int
    /// Largest source accepted, in bytes.
    public var maxInputBytes: Int
    /// Refuse truncated or corrupt files (libvips `fail_on=error`) instead of rendering whatever
    /// part decoded (libvips' default, which fills the rest with grey).
    public var failOnCorruptData: Bool
    /// Decode each source at the steps of a ladder of its own sizes (halved again and again; a
    /// JPEG shrinks on load to the first four) and resample every variant from the smallest step
    /// that covers it (much faster for several sizes). `false` decodes each distinct size straight
    /// from the source. Either way a variant's bytes depend only on its own spec.
    public var cascade: Bool
    /// Decode a JPEG at 1/2, 1/4 or 1/8 of its size whenever the decode is at least that much
    /// smaller, and resample the rest of the way (sharp's default). `false` keeps libvips' rule,
    /// which leaves a factor of two to the resampler: photos reduced 2–4× then decode whole, at
    /// about twice the cost, for differences below JPEG's own noise.
    public var fastShrinkOnLoad: Bool
    /// Encoder settings used when a ``VariantSpec`` leaves them `nil`.
    public var encoderDefaults: EncoderDefaults

    public init(maxPixels: Int = 100_000_000, maxInputBytes: Int = 50_000_000,
                failOnCorruptData: Bool = true, cascade: Bool = true,
                fastShrinkOnLoad: Bool = true, encoderDefaults: EncoderDefaults = EncoderDefaults()) {
        self.maxPixels = maxPixels
        self.maxInputBytes = maxInputBytes
        self.failOnCorruptData = failOnCorruptData
        self.cascade = cascade
        self.fastShrinkOnLoad = fastShrinkOnLoad
        self.encoderDefaults = encoderDefaults
    }
}
