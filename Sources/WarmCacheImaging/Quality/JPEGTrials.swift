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
            && image.space == .srgb && agreesWithLibvips(settings)
    }

    /// Whether the shim's libjpeg writes the saver's own file for these settings, and reads a
    /// file into the loader's own pixels. It does where both link the same libjpeg, as on Debian
    /// (libjpeg-turbo). Where libvips links another one (Homebrew's libvips links mozjpeg, whose
    /// files differ) trials and scoring go through libvips instead: the same files, slower.
    /// Checked once per process and settings, on a small picture.
    static func agreesWithLibvips(_ settings: EncoderSettings) -> Bool {
        let key = settings.saveOptions.interlace * 16 + settings.saveOptions.subsample
        agreement.lock()
        defer { agreement.unlock() }
        if let known = assumed ?? agreed[key] { return known }
        let result = (try? check(settings)) ?? false
        agreed[key] = result
        return result
    }

    /// Also the scoring decoder's switch (``DecodedPixels``): libjpeg directly only where it
    /// decodes as libvips does.
    static var decodesAsLibvips: Bool {
        agreesWithLibvips(EncoderSettings(format: .jpeg, quality: 80, effort: 0, lossless: false, progressive: false,
                                          subsampling: .auto, palette: false, keepICCProfile: false))
    }

    /// Makes every later check answer `agrees` (`nil`: check again): how tests take the path a
    /// system with two libjpegs takes.
    static func assumeAgreement(_ agrees: Bool?) {
        agreement.withLock { assumed = agrees }
    }

    nonisolated(unsafe) private static var assumed: Bool?
    nonisolated(unsafe) private static var agreed: [Int32: Bool] = [:]
    private static let agreement = NSLock()

    /// Encodes a small gradient with both, loads the saver's file with both, and compares.
    private static func check(_ settings: EncoderSettings) throws -> Bool {
        let (width, height) = (48, 40)
        var rgb = [UInt8](repeating: 0, count: width * height * 3)
        for y in 0..<height {
            for x in 0..<width {
                let i = (y * width + x) * 3
                (rgb[i], rgb[i + 1], rgb[i + 2]) = (UInt8(x * 5), UInt8(y * 6), UInt8((x * y) % 251))
            }
        }
        let source = SSIMULACRA2Image(width: width, height: height, channels: 3, pixels: rgb)
        let seed = try encode(source, settings: settings, quality: 95)
        let image = try VipsImage.make("jpegload") { out in
            seed.withUnsafeBytes { wc_load($0.baseAddress, $0.count, out) }
        }
        let loaded = try image.scoringPixels(bands: 3)
        var ours: UnsafeMutablePointer<UInt8>?
        var (decodedWidth, decodedHeight, length): (Int32, Int32, Int) = (0, 0, 0)
        ours = seed.withUnsafeBytes { wc_jpeg_decode8($0.baseAddress, $0.count, &decodedWidth, &decodedHeight, &length) }
        guard let ours else { return false }
        defer { wc_free(ours) }
        guard Array(UnsafeBufferPointer(start: ours, count: length)) == loaded.pixels else { return false }
        var saved = settings
        saved.quality = 80
        return try encode(loaded, settings: settings, quality: 80) == Encoder.encode(image, settings: saved)
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
