import Foundation
import WarmCache

/// The BlurHash encoder (the format is described on ``BlurHash``, in the runtime module, which
/// also holds the decoder that apps use).
extension BlurHash {
    /// Encodes opaque RGB content (the alpha byte of each pixel is ignored).
    /// - Parameters:
    ///   - rgba: 8-bit RGBA pixels, row by row (`width * height * 4` bytes).
    ///   - components: 1–9 cosine components along each axis.
    public static func encode(width: Int, height: Int, rgba: [UInt8], components: (x: Int, y: Int) = (4, 3)) -> String {
        precondition(width > 0 && height > 0 && rgba.count == width * height * 4, "pixels must match the size")
        precondition((1...9).contains(components.x) && (1...9).contains(components.y), "1-9 components per axis")
        let linear = rgba.map(SRGBTransfer.toLinear)
        var factors: [(Double, Double, Double)] = []
        for j in 0..<components.y {
            let rows = (0..<height).map { cos(Double.pi * Double(j) * Double($0) / Double(height)) }
            for i in 0..<components.x {
                let columns = (0..<width).map { cos(Double.pi * Double(i) * Double($0) / Double(width)) }
                var r = 0.0, g = 0.0, b = 0.0
                for y in 0..<height {
                    for x in 0..<width {
                        let basis = columns[x] * rows[y]
                        let offset = (y * width + x) * 4
                        r += basis * linear[offset]
                        g += basis * linear[offset + 1]
                        b += basis * linear[offset + 2]
                    }
                }
                let normalisation = (i == 0 && j == 0 ? 1.0 : 2.0) / Double(width * height)
                factors.append((r * normalisation, g * normalisation, b * normalisation))
            }
        }
        return pack(factors, components: components)
    }

    /// Writes the DCT factors (DC first) as a hash string.
    private static func pack(_ factors: [(Double, Double, Double)], components: (x: Int, y: Int)) -> String {
        var hash = Base83.encode((components.x - 1) + (components.y - 1) * 9, length: 1)
        let ac = factors.dropFirst()
        var maximum = 1.0
        if let largest = ac.map({ max(abs($0.0), abs($0.1), abs($0.2)) }).max() {
            let quantised = Int(max(0, min(82, (largest * 166 - 0.5).rounded(.down))))
            maximum = Double(quantised + 1) / 166
            hash += Base83.encode(quantised, length: 1)
        } else {
            hash += Base83.encode(0, length: 1)
        }
        let dc = factors[0]
        let dcValue = SRGBTransfer.fromLinear(dc.0) << 16 | SRGBTransfer.fromLinear(dc.1) << 8
            | SRGBTransfer.fromLinear(dc.2)
        hash += Base83.encode(dcValue, length: 4)
        for factor in ac {
            let value = quantiseAC(factor.0, maximum) * 361 + quantiseAC(factor.1, maximum) * 19
                + quantiseAC(factor.2, maximum)
            hash += Base83.encode(value, length: 2)
        }
        return hash
    }

    /// 0–18 on a square-root scale, 9 meaning zero.
    private static func quantiseAC(_ value: Double, _ maximum: Double) -> Int {
        let scaled = value / maximum
        let curved = scaled < 0 ? -(-scaled).squareRoot() : scaled.squareRoot()
        return Int(max(0, min(18, (curved * 9 + 9.5).rounded(.down))))
    }
}
