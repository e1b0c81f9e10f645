import WarmCache
import CVipsShim

/// Decodes a source once per render: shrink-on-load straight to the size needed, upright,
/// converted to 8-bit sRGB (or 8-bit grey), computed into memory.
///
/// libvips' `thumbnail` does the heavy lifting: JPEG, WebP and HEIF decoders can shrink while
/// decoding (a 6000 px JPEG decodes at 1/8 scale in a fraction of the time), EXIF orientation
/// is applied, CMYK and profiled images are converted, and alpha is resampled premultiplied.
/// Only the first frame of an animation or multi-page file is decoded. How far a JPEG shrinks
/// while decoding is ``JPEGShrinkOnLoad``'s choice.
struct SourceDecoder {
    /// The encoded source; valid for the decoder's lifetime.
    let bytes: UnsafeRawBufferPointer
    let source: SourceImageInfo
    let name: String
    let failOn: Int32
    /// ``ImagingConfiguration/fastShrinkOnLoad``.
    let fastShrinkOnLoad: Bool

    /// The source decoded at `size` (upright pixels) in `mode`'s colour space, in memory; with
    /// `halved`, that decode halved (``VipsImage/halved()``) as it streams, so that only the
    /// half-size image is ever held whole.
    func decode(size: PixelSize, exportProfile: String?, halved: Bool = false) throws(ImagingError) -> VipsImage {
        guard let base = bytes.baseAddress else {
            throw ImagingError(.decodeFailed, source: name, message: "empty input")
        }
        do {
            return try decodeOnce(base, size: size, exportProfile: exportProfile, halved: halved)
        } catch where !error.log.isEmpty {
            throw ImagingError.decode(source: name, call: error)
        } catch {
            // Another image's failure took this one's message (see VipsCallError). Failures are
            // rare: decode again alone, holding the lock every take needs, to hear our own.
            VipsCallError.lock.lock()
            defer { VipsCallError.lock.unlock() }
            let retried: VipsCallError
            do {
                _ = try decodeOnce(base, size: size, exportProfile: exportProfile, halved: halved)
                retried = error
            } catch let again {
                retried = again
            }
            throw ImagingError.decode(source: name, call: retried.log.isEmpty ? error : retried)
        }
    }

    private func decodeOnce(_ base: UnsafeRawPointer, size: PixelSize, exportProfile: String?, halved: Bool)
        throws(VipsCallError) -> VipsImage {
        let shrink = JPEGShrinkOnLoad.factor(source: source, target: size, fast: fastShrinkOnLoad)
        let decoded = try VipsImage.make("thumbnail") { out in
            if let exportProfile {
                return exportProfile.withCString {
                    wc_thumbnail(base, bytes.count, Int32(size.width), Int32(size.height), failOn, $0, shrink, out)
                }
            }
            return wc_thumbnail(base, bytes.count, Int32(size.width), Int32(size.height), failOn, nil, shrink, out)
        }
        let image = try Self.normalised(decoded)
        return try halved ? image.halved() : image.copiedToMemory()
    }

    /// 8-bit sRGB or 8-bit grey, alpha kept. `thumbnail` already converts most inputs; this
    /// catches the rest (16-bit grey, Lab or scRGB TIFFs, float data).
    static func normalised(_ image: VipsImage) throws(VipsCallError) -> VipsImage {
        var image = image
        switch image.space {
        case .srgb, .bw:
            break
        case .grey16:
            image = try image.converted(to: .bw)
        case .rgb16, .cmyk, .other:
            image = try image.converted(to: .srgb)
        }
        return image.isUChar ? image : try image.castToUChar()
    }
}
