import CVipsShim
import WarmCache

/// The concrete encoder settings for one variant: the spec's explicit choices, the engine's
/// defaults for the rest, clamped to what each encoder accepts.
struct EncoderSettings: Hashable, Sendable {
    /// JPEG / HEIF chroma subsampling mode.
    enum Subsampling: Hashable, Sendable {
        /// libvips decides (JPEG: 4:2:0 below quality 90).
        case auto
        /// Always 4:2:0.
        case on
        /// Full-resolution chroma (4:4:4).
        case off
    }

    var format: ImageFormat
    var quality: Int
    var effort: Int
    var lossless: Bool
    var progressive: Bool
    var subsampling: Subsampling
    var palette: Bool
    var keepICCProfile: Bool
    /// How hard a quality target's search works (``SearchSpeed/balanced`` without a target).
    var speed: SearchSpeed = .default
    /// Whether a search chooses the chroma per image, at the probe: AVIF with a quality target
    /// and no chroma set keeps whichever of 4:2:0 and 4:4:4 reaches the target in fewer bytes
    /// there (photos: 4:2:0; sharp edges in colour: 4:4:4). Until then, and for variants too
    /// small to follow the probe, 4:4:4.
    var choosesChromaPerImage = false
    /// libaom's options for AVIF: the speed's for a quality target, else ``fixedQualityAVIFOptions``.
    var avifCodecOptions = EncoderSettings.fixedQualityAVIFOptions

    /// AVIF at a fixed quality: without rectangular partitions, libaom's speed 5 takes 0.40–0.48×
    /// the CPU for about 2 % more bytes (`docs/performance.md`, "AVIF encoders").
    static let fixedQualityAVIFOptions = "enable-rect-partitions=0," + withoutIntraBlockCopy

    /// libaom's intra block copy off. The tool copies blocks from elsewhere in the frame, for
    /// screen content (text, interfaces); libaom turns it on when its detector takes an image for
    /// such content, which smooth photos can pass: a 3072×1920 crop of a flower photo then held
    /// 565 MB and took 10.4 s at speed 6 for 36,087 bytes, against 130 MB, 1.3 s and 35,639
    /// bytes without it. Its hash tables grow with the frame, beyond what a warm's memory limit
    /// can plan for (`docs/performance.md`, "Memory bounded by the work in flight").
    static let withoutIntraBlockCopy = "enable-intrabc=0"

    /// The settings for `spec`, which should be canonical for its format (``EncoderTable/canonical(_:)``):
    /// what it sets, else `defaults`, else the table's defaults; effort within the table's range.
    static func resolve(_ spec: VariantSpec, defaults: EncoderDefaults) -> EncoderSettings {
        let format = spec.format
        let options = spec.options
        let row = EncoderTable.row(format)
        let range = row.effort?.range ?? 0...0
        let speed = spec.qualityTarget != nil ? options.speed ?? .default : .default
        // A quality target's speed sets the effort the options leave open (AVIF's libaom speed).
        let levelEffort = spec.qualityTarget != nil ? speed.effort(format) : nil
        let effort = options.effort ?? levelEffort ?? defaults.effort[format] ?? row.effort?.default ?? 0
        let quality = spec.quality ?? defaults.quality[format] ?? row.quality?.default ?? 100
        let subsampling: Subsampling = switch options.chromaSubsampling {
        case .some(true): .on
        case .some(false): .off
        // At a quality target, full chroma (WebP: sharp RGB to YUV) reaches it in fewer bytes, and
        // small variants reach it at all (docs/imaging.md, "Perceptual quality").
        case .none: spec.qualityTarget != nil ? .off : .auto
        }
        var settings = EncoderSettings(
            format: format,
            quality: min(100, max(1, quality)),
            effort: min(range.upperBound, max(range.lowerBound, effort)),
            lossless: options.lossless ?? false,
            progressive: options.progressive ?? defaults.progressive,
            subsampling: subsampling,
            palette: options.palette ?? false,
            keepICCProfile: options.keepICCProfile ?? false,
            speed: speed)
        settings.choosesChromaPerImage = format == .avif && spec.qualityTarget != nil
            && options.chromaSubsampling == nil && !settings.lossless
        if spec.qualityTarget != nil { settings.avifCodecOptions = speed.avifCodecOptions }
        return settings
    }

    /// Whether the saver itself leaves every metadata field out (libvips' `strip`, honoured by
    /// its JPEG and PNG savers), so the image needs no stripped copy first: a libvips operation
    /// per variant saved. Other savers, and a kept ICC profile, get an image with nothing else.
    var encoderStripsEverything: Bool {
        !keepICCProfile && (format == .jpeg || format == .png)
    }

    /// The shim's option block. Metadata is stripped by the encoder unless the ICC profile is
    /// kept, in which case the image reaching the encoder carries nothing else.
    var saveOptions: WCSaveOptions {
        WCSaveOptions(
            quality: Int32(quality),
            effort: Int32(effort),
            lossless: lossless ? 1 : 0,
            interlace: progressive ? 1 : 0,
            subsample: subsampleMode,
            // Lossy WebP is always 4:2:0; asking for no subsampling turns on sharp RGB->YUV instead.
            smart_subsample: subsampling == .off ? 1 : 0,
            palette: palette ? 1 : 0,
            strip: keepICCProfile ? 0 : 1)
    }

    private var subsampleMode: Int32 {
        switch subsampling {
        case .auto: Int32(WC_SUBSAMPLE_AUTO)
        case .on: Int32(WC_SUBSAMPLE_ON)
        case .off: Int32(WC_SUBSAMPLE_OFF)
        }
    }
}
