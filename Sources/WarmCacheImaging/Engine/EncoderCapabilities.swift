import CVipsShim
import WarmCache

/// Which output formats and options this libvips build supports.
///
/// Savers are loadable modules, so each format is first looked up by operation name
/// (`vips_type_find`), then confirmed by encoding a tiny image: a saver can exist and still
/// fail (HEIF without an AV1 or HEVC encoder plugin, PNG palettes without libimagequant).
struct EncoderCapabilities: Sendable {
    /// Formats whose encoder produced a file.
    var formats: Set<ImageFormat>
    /// Whether `pngsave` quantises to a palette (libvips built with libimagequant or quantizr).
    var pngPalette: Bool

    static func probe() -> EncoderCapabilities {
        guard (try? ImagingRuntime.started()) != nil, let sample = probeImage() else {
            return EncoderCapabilities(formats: [], pngPalette: false)
        }
        var formats: Set<ImageFormat> = []
        for format in ImageFormat.allCases where wc_vips_has_operation(saverName(format)) != 0 {
            let spec = VariantSpec(width: nil, height: nil, format: format, options: EncodingOptions(effort: 0))
            if (try? Encoder.encode(sample, settings: .resolve(spec, defaults: EncoderDefaults()))) != nil {
                formats.insert(format)
            }
        }
        var palette = false
        if formats.contains(.png) {
            let spec = VariantSpec(width: nil, height: nil, format: .png, options: EncodingOptions(palette: true))
            if let png = try? Encoder.encode(sample, settings: .resolve(spec, defaults: EncoderDefaults())) {
                // IHDR's colour type (byte 25) is 3 for an indexed-colour PNG.
                palette = png.count > 25 && png[png.startIndex + 25] == 3
            }
        }
        return EncoderCapabilities(formats: formats, pngPalette: palette)
    }

    /// The libvips operation that encodes `format` to memory.
    static func saverName(_ format: ImageFormat) -> String {
        switch format {
        case .avif, .heic: return "heifsave_buffer"
        default: return "\(format.rawValue)save_buffer"
        }
    }

    /// A 16x16 sRGB gradient.
    private static func probeImage() -> VipsImage? {
        let side = 16
        var pixels: [UInt8] = []
        for y in 0..<side {
            for x in 0..<side { pixels += [UInt8(x * 16), UInt8(y * 16), 128] }
        }
        guard let image = pixels.withUnsafeBufferPointer({ wc_image_from_pixels($0.baseAddress, 16, 16, 3) }) else {
            _ = VipsCallError.take("probe")
            return nil
        }
        return VipsImage(taking: image)
    }
}
