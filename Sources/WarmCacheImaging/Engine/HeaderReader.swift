import CVipsShim
import Foundation
import WarmCache

/// Reads a source's header with libvips, without decoding pixels.
enum HeaderReader {
    /// What the header says, and whether its embedded profile is the standard sRGB one (then its
    /// pixels are decoded as they are, without a colour transform to sRGB).
    struct Header {
        var info: SourceImageInfo
        var hasSRGBProfile: Bool
    }

    static func read(_ bytes: Data, name: String, failOn: Int32) throws(ImagingError) -> Header {
        let result: Result<Header, ImagingError> = bytes.withUnsafeBytes { buffer in
            Result { () throws(ImagingError) in try read(buffer, byteCount: bytes.count, name: name, failOn: failOn) }
        }
        return try result.get()
    }

    private static func read(_ buffer: UnsafeRawBufferPointer, byteCount: Int, name: String,
                             failOn: Int32) throws(ImagingError) -> Header {
        guard let base = buffer.baseAddress, byteCount > 0,
              let loaderName = wc_find_loader(base, byteCount).map({ String(cString: $0) }) else {
            _ = VipsCallError.take("find loader")  // clears "not a known format" under the lock
            throw ImagingError(.unsupportedFormat, source: name, message: "not a recognised image format")
        }
        guard let family = InputLoaders.family(ofLoader: loaderName) else {
            throw ImagingError(.unsupportedFormat, source: name,
                               message: "it is \(InputLoaders.refusedFormat(ofLoader: loaderName)), which WarmCache does "
                                   + "not bake; link a JPEG, PNG, WebP, GIF, HEIF/AVIF, JPEG XL or TIFF version instead")
        }
        let header: VipsImage
        do {
            header = try VipsImage.make("header") { wc_open_header(base, byteCount, failOn, $0) }
        } catch {
            throw ImagingError.decode(source: name, call: error)
        }
        let stored = header.size
        let orientation = min(8, max(1, header.orientation))
        let swapsSides = orientation >= 5
        let colorModel: SourceImageInfo.ColorModel = switch header.space {
        case .srgb, .rgb16: .rgb
        case .bw, .grey16: .grey
        case .cmyk: .cmyk
        case .other: .other
        }
        let info = SourceImageInfo(
            format: InputLoaders.format(ofFamily: family, heifCompression: heifCompression(of: header)),
            loader: family,
            pixelWidth: swapsSides ? stored.height : stored.width,
            pixelHeight: swapsSides ? stored.width : stored.height,
            orientation: orientation,
            hasAlpha: header.hasAlpha,
            pageCount: header.pageCount,
            isAnimated: header.pageCount > 1 && (family == "gif" || family == "webp"),
            hasICCProfile: header.hasICCProfile,
            colorModel: colorModel,
            byteCount: byteCount)
        return Header(info: info, hasSRGBProfile: header.hasSRGBProfile)
    }

    private static func heifCompression(of header: VipsImage) -> String? {
        var text = [CChar](repeating: 0, count: 16)
        guard wc_heif_compression(header.pointer, &text, text.count) == 0 else {
            _ = VipsCallError.take("heif-compression")  // clears any lookup error under the lock
            return nil
        }
        return String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
