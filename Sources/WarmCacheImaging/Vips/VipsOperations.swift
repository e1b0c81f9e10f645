import WarmCache
import CVipsShim

/// The libvips operations the engine uses, as methods returning new lazy images.
extension VipsImage {
    /// Resamples by separate horizontal and vertical factors (Lanczos 3; premultiplied when the
    /// image has alpha).
    func resized(hscale: Double, vscale: Double) throws(VipsCallError) -> VipsImage {
        try derive("resize") { wc_resize($0, hscale, vscale, $1) }
    }

    /// Resamples to exactly `target` pixels.
    func resized(to target: PixelSize) throws(VipsCallError) -> VipsImage {
        let current = size
        if current == target { return self }
        return try resized(hscale: Double(target.width) / Double(current.width),
                           vscale: Double(target.height) / Double(current.height))
    }

    /// Half the size, rounded down, in memory: each pixel the mean of a 2x2 block (alpha-weighted
    /// with alpha). Reads its input in strips, so a sequential decode streams through.
    func halved() throws(VipsCallError) -> VipsImage {
        try derive("halve") { wc_halve($0, $1) }
    }

    func cropped(to rect: PixelRect) throws(VipsCallError) -> VipsImage {
        try derive("crop") { wc_crop($0, Int32(rect.x), Int32(rect.y), Int32(rect.width), Int32(rect.height), $1) }
    }

    /// libvips' smart crop: keeps the most interesting `size` region.
    func smartCropped(to size: PixelSize, strategy: SmartCropStrategy) throws(VipsCallError) -> VipsImage {
        let mode = strategy == .entropy ? Int32(WC_INTERESTING_ENTROPY) : Int32(WC_INTERESTING_ATTENTION)
        return try derive("smartcrop") { wc_smartcrop($0, Int32(size.width), Int32(size.height), mode, $1) }
    }

    /// Places the image at `origin` on a `canvas`-sized background (one value per band).
    func embedded(in canvas: PixelSize, at origin: PixelPoint, background: [Double]) throws(VipsCallError) -> VipsImage {
        try derive("embed") { input, out in
            background.withUnsafeBufferPointer { values in
                wc_embed(input, Int32(origin.x), Int32(origin.y), Int32(canvas.width), Int32(canvas.height),
                         values.baseAddress, Int32(values.count), out)
            }
        }
    }

    /// Composites alpha onto a background (one value per colour band) and drops the alpha band.
    func flattened(background: [Double]) throws(VipsCallError) -> VipsImage {
        try derive("flatten") { input, out in
            background.withUnsafeBufferPointer { values in
                wc_flatten(input, values.baseAddress, Int32(values.count), out)
            }
        }
    }

    /// Converts to another colour space (alpha is kept).
    func converted(to space: VipsColourSpace) throws(VipsCallError) -> VipsImage {
        try derive("colourspace") { wc_colourspace($0, space.rawValue, $1) }
    }

    func castToUChar() throws(VipsCallError) -> VipsImage {
        try derive("cast") { wc_cast_uchar($0, $1) }
    }

    /// Appends an opaque alpha band.
    func addingAlpha() throws(VipsCallError) -> VipsImage {
        try derive("bandjoin") { wc_add_alpha($0, $1) }
    }

    func blurred(sigma: Double) throws(VipsCallError) -> VipsImage {
        try derive("gaussblur") { wc_gaussblur($0, sigma, $1) }
    }

    /// Multiplies the alpha by an 8-bit coverage mask of the image's size (adds alpha if absent).
    func masked(by mask: [UInt8]) throws(VipsCallError) -> VipsImage {
        let size = self.size
        precondition(mask.count == size.width * size.height, "mask must match the image size")
        return try derive("mask") { input, out in
            mask.withUnsafeBufferPointer { wc_apply_alpha_mask(input, $0.baseAddress, Int32(size.width),
                                                                Int32(size.height), out) }
        }
    }

    /// Computes the pipeline into memory, so it can be read any number of times.
    func copiedToMemory() throws(VipsCallError) -> VipsImage {
        guard let copy = wc_copy_memory(pointer) else { throw VipsCallError.take("decode") }
        return VipsImage(taking: copy)
    }

    /// A copy with every metadata field removed, except the ICC profile when `keepICCProfile`.
    func strippingMetadata(keepICCProfile: Bool) throws(VipsCallError) -> VipsImage {
        try derive("strip") { wc_strip_metadata($0, keepICCProfile ? 1 : 0, $1) }
    }

    /// The pixels as 8-bit sRGB RGBA, row by row.
    func rgba8Pixels() throws(VipsCallError) -> [UInt8] {
        var length = 0
        guard let buffer = wc_write_rgba8(pointer, &length) else { throw VipsCallError.take("write") }
        defer { wc_free(buffer) }
        return Array(UnsafeBufferPointer(start: buffer, count: length))
    }
}
