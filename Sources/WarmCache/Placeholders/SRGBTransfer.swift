import Foundation

/// The sRGB transfer function: 8-bit sRGB values to linear light and back.
///
/// Averaging and blurring are physically right only in linear light; averaging sRGB values
/// directly makes mixes of bright and dark look too dark.
package enum SRGBTransfer {
    /// Linear light (0–1) for each 8-bit sRGB value.
    package static let toLinearTable: [Double] = (0...255).map { value in
        let v = Double(value) / 255
        return v <= 0.04045 ? v / 12.92 : pow((v + 0.055) / 1.055, 2.4)
    }

    package static func toLinear(_ value: UInt8) -> Double {
        toLinearTable[Int(value)]
    }

    /// The 8-bit sRGB value for linear light (clamped to 0–1, rounded half up).
    package static func fromLinear(_ value: Double) -> Int {
        let v = min(1, max(0, value))
        let encoded = v <= 0.0031308 ? v * 12.92 : 1.055 * pow(v, 1 / 2.4) - 0.055
        return Int(encoded * 255 + 0.5)
    }
}
