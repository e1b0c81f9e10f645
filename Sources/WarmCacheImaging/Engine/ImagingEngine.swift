import CVipsShim
import Foundation
import WarmCache

/// The pixel core of the builder: opens sources, renders variants and placeholders.
///
/// ```swift
/// let engine = try ImagingEngine()
/// let source = try engine.open(bytes, name: "https://example.com/cat.jpg")
/// let specs = requests.map { $0.resolve(sourceHasAlpha: source.info.hasAlpha) }
/// let variants = try source.render(specs)
/// ```
///
/// An engine is immutable and `Sendable`: share one across tasks and render many sources at
/// once. Each render is synchronous CPU work on the calling thread, with
/// ``ImagingRuntime/Settings/threadsPerImage`` libvips helper threads (1 by default).
public final class ImagingEngine: Sendable {
    public let configuration: ImagingConfiguration
    let capabilities: EncoderCapabilities

    /// Creates an engine. Starts the process-wide ``ImagingRuntime`` with default settings if
    /// nothing has started it yet; otherwise uses it as it runs. The configuration is this
    /// engine's own: limits, strictness, cascade and encoder defaults change nothing else.
    public init(configuration: ImagingConfiguration = ImagingConfiguration()) throws(ImagingError) {
        try ImagingRuntime.started()
        self.configuration = configuration
        self.capabilities = ImagingRuntime.capabilities
    }

    /// The output formats this libvips build can encode (each probed once per process, starting
    /// the runtime if needed; empty only if libvips cannot start).
    public static func availableFormats() -> Set<ImageFormat> {
        ImagingRuntime.capabilities.formats
    }

    /// Whether this libvips build can encode `format`; probes that format alone, once per process.
    public static func canEncode(_ format: ImageFormat) -> Bool {
        ImagingRuntime.capabilities.canEncode(format)
    }

    /// The input formats this libvips build decodes (its loaders for them exist; AVIF and HEIC
    /// share the HEIF loader, whose codecs decide which it reads).
    public static func decodableFormats() -> Set<ImageFormat> {
        guard (try? ImagingRuntime.started()) != nil else { return [] }
        let loaders: [(ImageFormat, String)] = [
            (.jpeg, "jpegload_buffer"), (.png, "pngload_buffer"), (.webp, "webpload_buffer"),
            (.gif, "gifload_buffer"), (.avif, "heifload_buffer"), (.heic, "heifload_buffer"),
            (.jxl, "jxlload_buffer"),
        ]
        return Set(loaders.filter { wc_vips_has_operation($0.1) != 0 }.map(\.0))
    }

    /// Whether PNG palette quantisation is available (libvips built with libimagequant).
    public static var supportsPNGPalette: Bool {
        ImagingRuntime.capabilities.pngPalette
    }

    /// The libvips version in use.
    public static var libvipsVersion: String { String(cString: wc_vips_version()) }

    /// What writes AVIF files and its version (libavif and its codecs, or libheif when
    /// `WARMCACHE_AVIF_ENCODER=libheif`): the same settings give other bytes in another one.
    public static var avifEncoder: String {
        if Encoder.avifThroughLibheif { return "libheif" }
        var buffer = [CChar](repeating: 0, count: 512)
        return buffer.withUnsafeMutableBufferPointer { pointer in
            wc_avif_encoder_name(pointer.baseAddress, pointer.count)
            return String(cString: pointer.baseAddress!)
        }
    }

    /// Reads a source's header: format, upright size, alpha, frames. Cheap: no pixel is decoded.
    ///
    /// Limits are enforced here, before any decoding: the byte count, the accepted input
    /// formats, and the pixel count declared by the header (so a tiny file declaring a
    /// gigapixel image is refused in microseconds).
    ///
    /// - Parameters:
    ///   - bytes: the encoded image. It is kept (not copied) by the returned source.
    ///   - name: names the source in errors (a URL or path).
    public func open(_ bytes: Data, name: String) throws(ImagingError) -> OpenedSource {
        guard bytes.count <= configuration.maxInputBytes else {
            throw ImagingError(.tooManyBytes, source: name,
                               message: "it is \(ByteCountText.format(bytes.count)), over the \(ByteCountText.format(configuration.maxInputBytes)) "
                                   + "limit for one source")
        }
        let header = try HeaderReader.read(bytes, name: name, failOn: failLevel)
        let info = header.info
        guard info.pixelSize.area <= configuration.maxPixels else {
            throw ImagingError(.tooManyPixels, source: name,
                               message: "\(info.pixelSize) is \(info.pixelSize.area) pixels, over the limit of "
                                   + "\(configuration.maxPixels)")
        }
        return OpenedSource(name: name, info: info, hasSRGBProfile: header.hasSRGBProfile, bytes: bytes, engine: self)
    }

    /// The libvips `fail_on` level the configuration asks for.
    var failLevel: Int32 {
        configuration.failOnCorruptData ? Int32(WC_FAIL_ON_ERROR) : Int32(WC_FAIL_ON_NONE)
    }
}
