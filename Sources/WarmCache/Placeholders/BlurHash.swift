import Foundation

/// BlurHash (woltapp/blurhash): a few cosine components of an image, written in base 83.
///
/// Layout of the string: one digit for the component counts `(nx - 1) + (ny - 1) * 9`, one for
/// the quantised largest AC magnitude `m` (values are scaled by `(m + 1) / 166`), four for the
/// average colour as 24-bit sRGB (the DC component), then two per AC component, each channel
/// quantised to 0–18 on a square-root scale and packed as `r * 19² + g * 19 + b`.
/// Components are computed in linear light.
///
/// This runtime module decodes (``decode(_:width:height:punch:)``); the builder's imaging module
/// adds the encoder to this same type.
public enum BlurHash {
    /// Renders a hash to `width x height` RGBA8 pixels (opaque), or `nil` if it is malformed or
    /// the size is not positive.
    ///
    /// ``ImagePlaceholder/pixels(width:height:)`` calls this when a placeholder has a BlurHash but
    /// no ThumbHash; call it directly for a hash that comes from elsewhere (a server's JSON).
    ///
    /// - Parameters:
    ///   - hash: The BlurHash string.
    ///   - width: Width of the result in pixels; small sizes (32 or less) are enough, let the view
    ///     scale it up.
    ///   - height: Height of the result in pixels.
    ///   - punch: Scales the AC components; above 1 exaggerates contrast.
    /// - Returns: `width * height * 4` bytes, red, green, blue, alpha (always 255), row by row.
    public static func decode(_ hash: String, width: Int, height: Int, punch: Double = 1) -> [UInt8]? {
        guard let factors = factors(of: hash, punch: punch), width > 0, height > 0 else { return nil }
        let columns = (0..<width).map { x in
            (0..<factors.x).map { cos(Double.pi * Double(x) * Double($0) / Double(width)) }
        }
        let rows = (0..<height).map { y in
            (0..<factors.y).map { cos(Double.pi * Double(y) * Double($0) / Double(height)) }
        }
        var pixels = [UInt8](repeating: 255, count: width * height * 4)
        for y in 0..<height {
            let row = rows[y]
            for x in 0..<width {
                let column = columns[x]
                var r = 0.0, g = 0.0, b = 0.0
                for j in 0..<factors.y {
                    for i in 0..<factors.x {
                        let basis = column[i] * row[j]
                        let factor = factors.values[j * factors.x + i]
                        r += factor.0 * basis
                        g += factor.1 * basis
                        b += factor.2 * basis
                    }
                }
                let offset = (y * width + x) * 4
                pixels[offset] = UInt8(SRGBTransfer.fromLinear(r))
                pixels[offset + 1] = UInt8(SRGBTransfer.fromLinear(g))
                pixels[offset + 2] = UInt8(SRGBTransfer.fromLinear(b))
            }
        }
        return pixels
    }

    /// The average colour stored in a hash (its DC component), or `nil` if it is malformed.
    public static func averageColor(of hash: String) -> RGBAColor? {
        let characters = Array(hash)
        guard characters.count >= 6, let value = Base83.decode(characters[2..<6]) else { return nil }
        return RGBAColor(red: UInt8(value >> 16 & 255), green: UInt8(value >> 8 & 255), blue: UInt8(value & 255))
    }

    /// The component counts and linear-light factors of a hash (DC first).
    static func factors(of hash: String, punch: Double) -> (x: Int, y: Int, values: [(Double, Double, Double)])? {
        let characters = Array(hash)
        guard characters.count >= 6, let sizeFlag = Base83.decode(characters[0..<1]),
              let quantisedMaximum = Base83.decode(characters[1..<2]) else { return nil }
        let x = sizeFlag % 9 + 1
        let y = sizeFlag / 9 + 1
        guard characters.count == 4 + 2 * x * y, let dc = Base83.decode(characters[2..<6]) else { return nil }
        let maximum = Double(quantisedMaximum + 1) / 166 * punch
        var values = [(SRGBTransfer.toLinear(UInt8(dc >> 16 & 255)), SRGBTransfer.toLinear(UInt8(dc >> 8 & 255)),
                       SRGBTransfer.toLinear(UInt8(dc & 255)))]
        for index in 1..<(x * y) {
            let start = 4 + index * 2
            guard let value = Base83.decode(characters[start..<start + 2]) else { return nil }
            values.append((unquantise(value / 361, maximum), unquantise(value / 19 % 19, maximum),
                           unquantise(value % 19, maximum)))
        }
        return (x, y, values)
    }

    /// Inverse of the square-root quantisation: 0–18 back to -max...max.
    private static func unquantise(_ value: Int, _ maximum: Double) -> Double {
        let centred = Double(value - 9) / 9
        return (centred < 0 ? -1 : 1) * centred * centred * maximum
    }
}
