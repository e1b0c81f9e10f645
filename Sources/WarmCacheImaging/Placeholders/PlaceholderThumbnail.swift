import CVipsShim
import WarmCache

/// The small RGBA image placeholders are computed from, made in Swift from a decode already in
/// memory rather than by libvips.
///
/// Placeholders only keep an image's lowest frequencies (ThumbHash at most 7 cosine terms per
/// side, BlurHash 4, the average colour 1), so an area average is as good a thumbnail as a
/// Lanczos resample. Made by libvips it took five operations per source (resize, colour space,
/// cast, alpha band, copy out), each with libvips' per-operation set-up, which on small sources
/// costs more than the pixels themselves.
package enum PlaceholderThumbnail {
    /// Names how thumbnails are made, for caches of placeholders (the render memo's key).
    package static let method = "area average"

    /// `image` averaged down to `size` as 8-bit sRGB RGBA rows. Each output pixel is the mean of
    /// the input pixels whose centres fall inside it, colour weighted by alpha so transparent
    /// pixels' hidden colour does not bleed in. A decode (8-bit sRGB or grey, in memory) is read
    /// where it lies; any other image is first converted to 8-bit sRGB RGBA by libvips.
    static func rgba(of image: VipsImage, size: PixelSize) throws(VipsCallError) -> [UInt8] {
        let bands = image.bands
        let hasAlpha = image.hasAlpha
        let colourBands = hasAlpha ? bands - 1 : bands
        if image.isUChar, image.space == .srgb && colourBands == 3 || image.space == .bw && colourBands == 1,
           let pixels = wc_image_pixels(image.pointer) {
            return average(pixels, size: image.size, bands: bands, hasAlpha: hasAlpha, to: size)
        }
        let converted = try image.rgba8Pixels()
        return converted.withUnsafeBufferPointer { pixels in
            average(pixels.baseAddress!, size: image.size, bands: 4, hasAlpha: true, to: size)
        }
    }

    /// Interleaved 8-bit pixels (1 or 3 colour bands, then alpha if `hasAlpha`) averaged to `output`.
    private static func average(_ pixels: UnsafePointer<UInt8>, size source: PixelSize, bands: Int, hasAlpha: Bool,
                                to size: PixelSize) -> [UInt8] {
        let colourBands = hasAlpha ? bands - 1 : bands
        let columns = spans(output: size.width, input: source.width)
        let rows = spans(output: size.height, input: source.height)
        var output = [UInt8](repeating: 0, count: size.width * size.height * 4)
        output.withUnsafeMutableBufferPointer { out in
            for (y, rowSpan) in rows.enumerated() {
                for (x, columnSpan) in columns.enumerated() {
                    // Integer sums: colour weighted by alpha (at most 255 × 255 per pixel).
                    var red: UInt64 = 0, green: UInt64 = 0, blue: UInt64 = 0, alphaSum: UInt64 = 0
                    for inputY in rowSpan {
                        var offset = (inputY * source.width + columnSpan.lowerBound) * bands
                        for _ in columnSpan {
                            let alpha = hasAlpha ? UInt64(pixels[offset + bands - 1]) : 255
                            if colourBands == 1 {
                                let grey = UInt64(pixels[offset]) * alpha
                                red &+= grey; green &+= grey; blue &+= grey
                            } else {
                                red &+= UInt64(pixels[offset]) * alpha
                                green &+= UInt64(pixels[offset + 1]) * alpha
                                blue &+= UInt64(pixels[offset + 2]) * alpha
                            }
                            alphaSum &+= alpha
                            offset += bands
                        }
                    }
                    let target = (y * size.width + x) * 4
                    if alphaSum > 0 {
                        out[target] = rounded(red, alphaSum)
                        out[target + 1] = rounded(green, alphaSum)
                        out[target + 2] = rounded(blue, alphaSum)
                    }
                    out[target + 3] = rounded(alphaSum, UInt64(rowSpan.count * columnSpan.count))
                }
            }
        }
        return output
    }

    /// `numerator / denominator` rounded half up, as a channel value (the quotient is at most 255).
    private static func rounded(_ numerator: UInt64, _ denominator: UInt64) -> UInt8 {
        UInt8(truncatingIfNeeded: min(255, (2 * numerator + denominator) / (2 * denominator)))
    }

    /// For each of `output` pixels along one axis, the input pixels whose centres fall inside
    /// it (never empty: when output is larger than input, the nearest input pixel).
    private static func spans(output: Int, input: Int) -> [Range<Int>] {
        (0..<output).map { index in
            let start = index * input / output
            let end = max(start + 1, (index + 1) * input / output)
            return start..<end
        }
    }
}
