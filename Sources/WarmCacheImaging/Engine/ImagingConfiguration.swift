import WarmCache

/// Limits, strictness and encoder defaults of one ``ImagingEngine``. Process-wide libvips
/// settings (threads, malloc, vector paths) are ``ImagingRuntime/Settings``.
public struct ImagingConfiguration: Sendable, Hashable {
    /// Largest source accepted, in pixels (width x height of the first frame), checked from the
    /// header before anything is decoded. Also caps the size of any single output.
    public var maxPixels: Int
    /// Largest source accepted, in bytes.
    public var maxInputBytes: Int
    /// Refuse truncated or corrupt files (libvips `fail_on=error`) instead of rendering whatever
    /// part decoded (libvips' default, which fills the rest with grey).
    public var failOnCorruptData: Bool
    /// Decode each source once, at the largest size a render call needs, and resample every
    /// smaller variant from that decode (much faster for several sizes). A variant's pixels then
    /// depend on the largest size rendered with it. `false` decodes each distinct size straight
    /// from the source, so a variant's bytes depend only on its own spec.
    public var cascade: Bool
    /// Encoder settings used when a ``VariantSpec`` leaves them `nil`.
    public var encoderDefaults: EncoderDefaults

    public init(maxPixels: Int = 100_000_000, maxInputBytes: Int = 50 * 1024 * 1024,
                failOnCorruptData: Bool = true, cascade: Bool = true,
                encoderDefaults: EncoderDefaults = EncoderDefaults()) {
        self.maxPixels = maxPixels
        self.maxInputBytes = maxInputBytes
        self.failOnCorruptData = failOnCorruptData
        self.cascade = cascade
        self.encoderDefaults = encoderDefaults
    }
}

/// Per-format encoder defaults, used for every setting a ``VariantSpec`` leaves `nil`.
///
/// | format | quality | effort | notes |
/// |---|---|---|---|
/// | JPEG | 80 | – | optimised Huffman tables, baseline, 4:2:0 below quality 90 |
/// | PNG | – | 6 (zlib level) | truecolour unless `palette` |
/// | WebP | 80 | 4 (0–6) | lossy |
/// | AVIF | 55 | 2 (0–9) | AV1, 8-bit; low effort: AVIF encoding is the slowest step by far |
/// | HEIC | 55 | 2 (0–9) | HEVC, 8-bit |
/// | JPEG XL | 80 | 5 (3–9) | |
/// | GIF | – | 7 (1–10) | palette quantisation effort |
public struct EncoderDefaults: Sendable, Hashable {
    /// Quality 1–100 per lossy format.
    public var quality: [ImageFormat: Int]
    /// Effort per format, in the format's own scale.
    public var effort: [ImageFormat: Int]
    /// Progressive JPEG / interlaced PNG and GIF.
    public var progressive: Bool

    public init(quality: [ImageFormat: Int] = [.jpeg: 80, .webp: 80, .avif: 55, .heic: 55, .jxl: 80],
                effort: [ImageFormat: Int] = [.png: 6, .webp: 4, .avif: 2, .heic: 2, .jxl: 5, .gif: 7],
                progressive: Bool = false) {
        self.quality = quality
        self.effort = effort
        self.progressive = progressive
    }
}
