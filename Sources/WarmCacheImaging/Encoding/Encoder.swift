import CVipsShim
import Foundation
import WarmCache

/// Encodes a finished image with one format's libvips saver.
enum Encoder {
    /// AVIF goes through libavif; `WARMCACHE_AVIF_ENCODER=libheif` in the environment sends it
    /// through libheif as before, to compare the two (docs/performance.md). Imaging processes
    /// inherit the environment.
    static let avifThroughLibheif = ProcessInfo.processInfo.environment["WARMCACHE_AVIF_ENCODER"] == "libheif"

    /// The encoded bytes, with container metadata libvips cannot be told to omit removed.
    static func encode(_ image: VipsImage, settings: EncoderSettings) throws(VipsCallError) -> Data {
        var options = settings.saveOptions
        var buffer: UnsafeMutableRawPointer?
        var length = 0
        let status: Int32 = switch settings.format {
        case .jpeg: wc_save_jpeg(image.pointer, &options, &buffer, &length)
        case .png: wc_save_png(image.pointer, &options, &buffer, &length)
        case .webp: wc_save_webp(image.pointer, &options, &buffer, &length)
        case .avif where avifThroughLibheif: wc_save_heif(image.pointer, &options, 1, &buffer, &length)
        case .avif:
            settings.avifCodecOptions.withCString { codecOptions in
                var tuning = WCAvifTuning(speed: -1, single_image: 1, codec_options: codecOptions)
                return wc_save_avif_tuned(image.pointer, &options, &tuning, &buffer, &length)
            }
        case .heic: wc_save_heif(image.pointer, &options, 0, &buffer, &length)
        case .jxl: wc_save_jxl(image.pointer, &options, &buffer, &length)
        case .gif: wc_save_gif(image.pointer, &options, &buffer, &length)
        }
        guard status == 0, let buffer else {
            if let buffer { wc_free(buffer) }
            throw VipsCallError.take("\(settings.format.rawValue)save")
        }
        defer { wc_free(buffer) }
        let bytes = Data(bytes: buffer, count: length)
        switch settings.format {
        case .webp:
            // libvips 8.14's webpsave ignores `strip` and always writes an EXIF chunk.
            return WebPChunks.removingMetadata(from: bytes, keepICCProfile: settings.keepICCProfile)
        case .jpeg where settings.keepICCProfile:
            // Without `strip` jpegsave writes a fresh EXIF block; only the ICC profile is wanted.
            return JPEGSegments.removingEXIFAndXMP(from: bytes)
        default:
            return bytes
        }
    }
}
