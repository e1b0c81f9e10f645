import Foundation
import WarmCache

extension BlurHash {
    /// Renders a hash to `width x height` RGBA pixels (opaque), or `nil` if it is malformed.
    /// - Parameter punch: scales the AC components (above 1 exaggerates contrast).
    public static func decode(_ hash: String, width: Int, height: Int, punch: Double = 1) -> [UInt8]? {
        guard let factors = factors(of: hash, punch: punch), width > 0, height > 0 else { return nil }
        var pixels = [UInt8](repeating: 255, count: width * height * 4)
        for y in 0..<height {
            for x in 0..<width {
                var r = 0.0, g = 0.0, b = 0.0
                for j in 0..<factors.y {
                    let row = cos(Double.pi * Double(y) * Double(j) / Double(height))
                    for i in 0..<factors.x {
                        let basis = cos(Double.pi * Double(x) * Double(i) / Double(width)) * row
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
