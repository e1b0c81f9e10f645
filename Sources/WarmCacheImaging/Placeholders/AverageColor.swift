import WarmCache

/// The average colour of RGBA pixels, blended in linear light and weighted by alpha (a
/// transparent pixel's colour counts for nothing); the alpha is the mean opacity.
///
/// For an opaque image this is exactly the colour BlurHash stores as its DC component.
enum AverageColor {
    /// - Parameter rgba: 8-bit, not premultiplied, row by row.
    static func of(rgba: [UInt8]) -> RGBAColor {
        var red = 0.0, green = 0.0, blue = 0.0, weight = 0.0
        let pixelCount = rgba.count / 4
        for index in 0..<pixelCount {
            let offset = index * 4
            let alpha = Double(rgba[offset + 3]) / 255
            red += alpha * SRGBTransfer.toLinear(rgba[offset])
            green += alpha * SRGBTransfer.toLinear(rgba[offset + 1])
            blue += alpha * SRGBTransfer.toLinear(rgba[offset + 2])
            weight += alpha
        }
        guard weight > 0 else { return .transparent }
        return RGBAColor(red: UInt8(SRGBTransfer.fromLinear(red / weight)),
                         green: UInt8(SRGBTransfer.fromLinear(green / weight)),
                         blue: UInt8(SRGBTransfer.fromLinear(blue / weight)),
                         alpha: UInt8((weight / Double(pixelCount) * 255).rounded()))
    }
}
