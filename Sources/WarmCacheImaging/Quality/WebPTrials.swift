import CVipsShim
import Foundation

/// One image made ready for lossy WebP encodes at many qualities: the pixels are converted to
/// WebP's YUV once (with sharp RGB-to-YUV, when the settings ask for full chroma), not once per
/// encode as the libvips saver does. Each encode gives the bytes ``Encoder`` gives for the same
/// pixels and settings.
final class WebPTrials {
    private let picture: OpaquePointer
    private let effort: Int32

    /// Whether `settings` can be encoded this way: lossy WebP without a kept ICC profile.
    static func applies(to settings: EncoderSettings) -> Bool {
        settings.format == .webp && !settings.lossless && !settings.keepICCProfile
    }

    init(_ pixels: SSIMULACRA2Image, settings: EncoderSettings, wide: Bool = true) throws(VipsCallError) {
        let prepared = pixels.pixels.withUnsafeBufferPointer { buffer in
            wc_webp_prepare(buffer.baseAddress, Int32(pixels.width), Int32(pixels.height),
                            Int32(pixels.channels), settings.saveOptions.smart_subsample, wide ? 1 : 0)
        }
        guard let prepared else { throw VipsCallError.take("webpsave") }
        picture = prepared
        effort = settings.saveOptions.effort
    }

    deinit { wc_webp_free(picture) }

    func encode(quality: Int) throws(VipsCallError) -> Data {
        var buffer: UnsafeMutableRawPointer?
        var length = 0
        guard wc_webp_encode(picture, Int32(quality), effort, &buffer, &length) == 0, let buffer else {
            throw VipsCallError.take("webpsave")
        }
        defer { wc_free(buffer) }
        return Data(bytes: buffer, count: length)
    }
}
