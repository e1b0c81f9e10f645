import CVipsShim
import Foundation

/// A quality search's JPEG encodes, through libjpeg directly: the file libvips' saver writes for
/// the same pixels and settings (`CVipsShim/jpeg.c`), without a libvips pipeline and its worker
/// threads for each trial, which cost half as much again as the encode itself.
enum JPEGTrials {
    /// Whether `image` with `settings` can be encoded this way: 8-bit sRGB without alpha, nothing
    /// kept but the pixels (the saver would convert anything else first, or write metadata).
    static func applies(to settings: EncoderSettings, image: VipsImage) -> Bool {
        settings.format == .jpeg && !settings.keepICCProfile && image.bands == 3 && image.isUChar
            && image.space == .srgb
    }

    /// Encodes `pixels` (the image's own 8-bit RGB) at `quality`.
    static func encode(_ pixels: SSIMULACRA2Image, settings: EncoderSettings, quality: Int) throws(VipsCallError)
        -> Data {
        precondition(pixels.channels == 3, "JPEG trials encode RGB pixels")
        let options = settings.saveOptions
        var buffer: UnsafeMutableRawPointer?
        var length = 0
        let status = pixels.pixels.withUnsafeBufferPointer { bytes in
            wc_jpeg_encode8(bytes.baseAddress, Int32(pixels.width), Int32(pixels.height), Int32(quality),
                            options.interlace, options.subsample, &buffer, &length)
        }
        guard status == 0, let buffer else { throw VipsCallError.take("jpegsave") }
        defer { wc_free(buffer) }
        return Data(bytes: buffer, count: length)
    }
}
