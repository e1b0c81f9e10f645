import CVipsShim
import Foundation
import WarmCache
@testable import WarmCacheImaging

/// Test inputs: the repository's sample photos and images generated with libvips.
enum Fixtures {
    /// One engine for the whole suite (libvips is process-wide anyway).
    static let engine: ImagingEngine = {
        do { return try ImagingEngine() } catch { fatalError("libvips unavailable: \(error)") }
    }()

    /// The repository root, found from this file's path.
    static let repositoryRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// A sample photo from `Examples/Images` (chelsea.png, coffee.png, rocket.jpg, camera.png, coins.png).
    static func example(_ name: String) throws -> Data {
        try Data(contentsOf: repositoryRoot.appendingPathComponent("Examples/Images/\(name)"))
    }

    /// An 8-bit image whose pixel values come from `pixel(x, y)` (1–4 bands).
    static func image(width: Int, height: Int, bands: Int, pixel: (Int, Int) -> [UInt8]) -> VipsImage {
        // Any libvips call before initialisation would let libvips half-initialise itself
        // concurrently with the engine; the engine initialises it properly first.
        _ = engine
        var pixels: [UInt8] = []
        pixels.reserveCapacity(width * height * bands)
        for y in 0..<height {
            for x in 0..<width { pixels += pixel(x, y) }
        }
        let pointer = pixels.withUnsafeBufferPointer {
            wc_image_from_pixels($0.baseAddress, Int32(width), Int32(height), Int32(bands))
        }
        guard let pointer else { fatalError("wc_image_from_pixels failed") }
        return VipsImage(taking: pointer)
    }

    /// A smooth colour gradient, handy as a generic photo-like source.
    static func gradient(width: Int, height: Int, alpha: Bool = false) -> VipsImage {
        image(width: width, height: height, bands: alpha ? 4 : 3) { x, y in
            let rgb = [UInt8(x * 255 / max(1, width - 1)), UInt8(y * 255 / max(1, height - 1)), 96]
            return alpha ? rgb + [UInt8(x < width / 2 ? 255 : 64)] : rgb
        }
    }

    /// Encodes a fixture with the engine's own encoder.
    static func encode(_ image: VipsImage, as format: ImageFormat, quality: Int = 95, keepMetadata: Bool = false) throws -> Data {
        var settings = EncoderSettings.resolve(
            VariantSpec(width: nil, height: nil, format: format, quality: quality), defaults: EncoderDefaults())
        settings.keepICCProfile = keepMetadata
        return try Encoder.encode(image, settings: settings)
    }

    /// Encodes with libvips directly, metadata kept (for EXIF orientation and ICC fixtures).
    static func encodeKeepingMetadata(_ image: VipsImage, as format: ImageFormat, quality: Int = 95) throws -> Data {
        var options = WCSaveOptions(quality: Int32(quality), effort: 6, lossless: 0, interlace: 0, subsample: 0,
                                    smart_subsample: 0, palette: 0, strip: 0)
        var buffer: UnsafeMutableRawPointer?
        var length = 0
        let status: Int32 = switch format {
        case .png: wc_save_png(image.pointer, &options, &buffer, &length)
        case .webp: wc_save_webp(image.pointer, &options, &buffer, &length)
        case .gif: wc_save_gif(image.pointer, &options, &buffer, &length)
        default: wc_save_jpeg(image.pointer, &options, &buffer, &length)
        }
        guard status == 0, let buffer else { throw VipsCallError.take("fixture save") }
        defer { wc_free(buffer) }
        return Data(bytes: buffer, count: length)
    }

    /// A copy with an integer metadata field set.
    static func setting(_ name: String, to value: Int, on image: VipsImage) throws -> VipsImage {
        try image.derive("set") { wc_set_int($0, name, Int32(value), $1) }
    }

    /// Fully decodes encoded bytes with libvips.
    static func decode(_ data: Data) throws -> VipsImage {
        _ = engine
        return try data.withUnsafeBytes { buffer in
            try VipsImage.make("load") { wc_load(buffer.baseAddress, buffer.count, $0) }
        }
    }

    /// The band values of one pixel.
    static func pixel(_ image: VipsImage, _ x: Int, _ y: Int) -> [Double] {
        var values = [Double](repeating: 0, count: 8)
        let count = wc_getpoint(image.pointer, Int32(x), Int32(y), &values, 8)
        return count > 0 ? Array(values.prefix(Int(count))) : []
    }
}
