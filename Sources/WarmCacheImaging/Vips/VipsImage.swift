import WarmCache
import CVipsShim

/// An owned reference to a libvips image, released when the wrapper goes away.
///
/// libvips images are lazy pipelines: creating one with an operation only records the work,
/// pixels are computed when something reads them (``copiedToMemory()`` or an encoder). A
/// `VipsImage` is used by one render at a time and never crosses tasks, so it is deliberately
/// not `Sendable`.
final class VipsImage {
    /// The `VipsImage *` this wrapper owns one reference to.
    let pointer: OpaquePointer

    /// Takes ownership of a reference returned by libvips.
    init(taking pointer: OpaquePointer) {
        self.pointer = pointer
    }

    deinit {
        wc_unref(pointer)
    }

    /// Runs a libvips call that writes a new image to its `out` argument.
    ///
    /// - Parameters:
    ///   - operation: a short name for error messages ("resize", "jpegsave", ...).
    ///   - call: the shim call; returns 0 on success.
    static func make(_ operation: String, _ call: (UnsafeMutablePointer<OpaquePointer?>) -> Int32) throws(VipsCallError)
        -> VipsImage {
        var out: OpaquePointer?
        let status = call(&out)
        guard status == 0, let out else {
            if let out { wc_unref(out) }
            throw VipsCallError.take(operation)
        }
        return VipsImage(taking: out)
    }

    /// A new image produced from this one by `call`.
    func derive(_ operation: String, _ call: (OpaquePointer, UnsafeMutablePointer<OpaquePointer?>) -> Int32)
        throws(VipsCallError) -> VipsImage {
        try VipsImage.make(operation) { out in call(pointer, out) }
    }
}

// MARK: - Properties

extension VipsImage {
    /// Width and height in pixels.
    var size: PixelSize { PixelSize(width: Int(wc_image_width(pointer)), height: Int(wc_image_height(pointer))) }
    var bands: Int { Int(wc_image_bands(pointer)) }
    var hasAlpha: Bool { wc_image_has_alpha(pointer) != 0 }
    var isUChar: Bool { wc_image_is_uchar(pointer) != 0 }
    var hasICCProfile: Bool { wc_image_has_icc(pointer) != 0 }
    /// Whether the embedded profile is the standard sRGB one (`wc_image_icc_is_srgb`).
    var hasSRGBProfile: Bool { wc_image_icc_is_srgb(pointer) != 0 }
    var pageCount: Int { max(1, Int(wc_image_pages(pointer))) }
    var orientation: Int { Int(wc_image_orientation(pointer)) }
    var space: VipsColourSpace { VipsColourSpace(rawValue: wc_image_space(pointer)) ?? .other }

    /// Whether the colour bands are a single grey band (with or without alpha).
    var isGrey: Bool { space == .bw || space == .grey16 }
}

/// The colour spaces WarmCache tells apart (`WC_SPACE_*` in the shim).
enum VipsColourSpace: Int32 {
    case other = 0, srgb = 1, bw = 2, rgb16 = 3, grey16 = 4, cmyk = 5
}
