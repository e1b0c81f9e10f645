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

    /// `image` (8-bit sRGB or grey, with or without alpha) averaged down to `size` as RGBA rows.
    /// Each output pixel is the mean of the input pixels whose centres fall inside it, colour
    /// weighted by alpha so transparent pixels' hidden colour does not bleed in. `size` must not
    /// be larger than the image.
    static func rgba(of image: VipsImage, size: PixelSize) -> [UInt8]? {
        let source = image.size
        let bands = image.bands
        let hasAlpha = image.hasAlpha
        let colourBands = hasAlpha ? bands - 1 : bands
        guard image.isUChar, image.space == .srgb && colourBands == 3 || image.space == .bw && colourBands == 1,
              size.width >= 1, size.height >= 1, size.width <= source.width, size.height <= source.height,
              let pixels = wc_image_pixels(image.pointer) else { return nil }
        let columns = spans(output: size.width, input: source.width)
        let rows = spans(output: size.height, input: source.height)
        var output = [UInt8](repeating: 0, count: size.width * size.height * 4)
        output.withUnsafeMutableBufferPointer { out in
            for (y, rowSpan) in rows.enumerated() {
                for (x, columnSpan) in columns.enumerated() {
                    var colour = (0.0, 0.0, 0.0)
                    var alphaSum = 0.0
                    for inputY in rowSpan {
                        var offset = (inputY * source.width + columnSpan.lowerBound) * bands
                        for _ in columnSpan {
                            let alpha = hasAlpha ? Double(pixels[offset + bands - 1]) : 255
                            if colourBands == 1 {
                                let grey = Double(pixels[offset]) * alpha
                                colour.0 += grey; colour.1 += grey; colour.2 += grey
                            } else {
                                colour.0 += Double(pixels[offset]) * alpha
                                colour.1 += Double(pixels[offset + 1]) * alpha
                                colour.2 += Double(pixels[offset + 2]) * alpha
                            }
                            alphaSum += alpha
                            offset += bands
                        }
                    }
                    let count = Double(rowSpan.count * columnSpan.count)
                    let target = (y * size.width + x) * 4
                    if alphaSum > 0 {
                        out[target] = channel(colour.0 / alphaSum)
                        out[target + 1] = channel(colour.1 / alphaSum)
                        out[target + 2] = channel(colour.2 / alphaSum)
                    }
                    out[target + 3] = channel(alphaSum / count)
                }
            }
        }
        return output
    }

    /// For each of `output` pixels along one axis, the input pixels whose centres fall inside
    /// it (never empty: output is at most input).
    private static func spans(output: Int, input: Int) -> [Range<Int>] {
        (0..<output).map { index in
            let start = index * input / output
            let end = max(start + 1, (index + 1) * input / output)
            return start..<end
        }
    }

    private static func channel(_ value: Double) -> UInt8 {
        UInt8(min(255, max(0, value.rounded())))
    }
}
