import CVipsShim
import Foundation
import WarmCache

/// Which output formats and options this libvips build supports.
///
/// Savers are loadable modules, so each format is first looked up by operation name
/// (`vips_type_find`), then confirmed by encoding a tiny image: a saver can exist and still
/// fail (HEIF without an AV1 or HEVC encoder plugin, PNG palettes without libimagequant).
///
/// Each format is probed the first time it is asked about, not all at start: a run that
/// writes JPEG never starts the AV1, HEVC and JPEG XL encoders (a one-source re-warm took
/// 0.08 s with all seven probed, 0.07 s with JPEG alone). Thread-safe.
final class EncoderCapabilities: @unchecked Sendable {
    private let lock = NSLock()
    private var probed: [ImageFormat: Bool] = [:]
    private var palette: Bool?

    /// Whether this libvips encodes `format` (probed on first ask).
    func canEncode(_ format: ImageFormat) -> Bool {
        lock.lock()
        defer { lock.unlock() }
        if let known = probed[format] { return known }
        let works = Self.sample.map { sample in
            let spec = VariantSpec(width: nil, height: nil, format: format, options: EncodingOptions(effort: 0))
            return wc_vips_has_operation(Self.saverName(format)) != 0
                && (try? Encoder.encode(sample, settings: .resolve(spec, defaults: EncoderDefaults()))) != nil
        } ?? false
        probed[format] = works
        return works
    }

    /// Every format this libvips encodes (probes those not asked about yet).
    var formats: Set<ImageFormat> {
        Set(ImageFormat.allCases.filter(canEncode))
    }

    /// Whether `pngsave` quantises to a palette (libvips built with libimagequant or quantizr).
    var pngPalette: Bool {
        guard canEncode(.png), let sample = Self.sample else { return false }
        lock.lock()
        defer { lock.unlock() }
        if let palette { return palette }
        let spec = VariantSpec(width: nil, height: nil, format: .png, options: EncodingOptions(palette: true))
        let png = try? Encoder.encode(sample, settings: .resolve(spec, defaults: EncoderDefaults()))
        // IHDR's colour type (byte 25) is 3 for an indexed-colour PNG.
        let found = png.map { $0.count > 25 && $0[$0.startIndex + 25] == 3 } ?? false
        palette = found
        return found
    }

    /// The image every probe encodes: a 16x16 sRGB gradient (`nil` if libvips cannot start).
    /// Made once (a static's first use is thread-safe); encoded only by probes, under the lock.
    nonisolated(unsafe) private static let sample: VipsImage? = {
        guard (try? ImagingRuntime.started()) != nil else { return nil }
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
    }()

    /// The libvips operation that encodes `format` to memory.
    static func saverName(_ format: ImageFormat) -> String {
        switch format {
        case .avif, .heic: return "heifsave_buffer"
        default: return "\(format.rawValue)save_buffer"
        }
    }
}
