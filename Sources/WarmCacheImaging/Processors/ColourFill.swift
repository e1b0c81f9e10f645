import WarmCache

/// Turns an ``RGBAColor`` into the band values libvips expects for a given image, first
/// converting the image if it cannot show the colour (a grey image and a red background).
enum ColourFill {
    /// Prepares `image` for painting `colour` around or under it.
    /// - Parameter withAlpha: the colour's alpha matters (padding); flattening ignores it.
    /// - Returns: the (possibly converted) image and one value per band, alpha included if the
    ///   image has alpha.
    static func prepare(_ image: VipsImage, for colour: RGBAColor,
                        withAlpha: Bool) throws(VipsCallError) -> (image: VipsImage, values: [Double]) {
        var image = image
        let isGreyColour = colour.red == colour.green && colour.green == colour.blue
        if image.isGrey, !isGreyColour {
            image = try image.converted(to: .srgb)
        }
        if withAlpha, colour.alpha < 255, !image.hasAlpha {
            image = try image.addingAlpha()
        }
        var values = image.isGrey ? [Double(colour.red)] : [Double(colour.red), Double(colour.green), Double(colour.blue)]
        if withAlpha, image.hasAlpha { values.append(Double(colour.alpha)) }
        return (image, values)
    }

    /// `image` with any transparency composited onto `colour` (whose alpha is ignored).
    static func flatten(_ image: VipsImage, onto colour: RGBAColor) throws(VipsCallError) -> VipsImage {
        guard image.hasAlpha else { return image }
        let prepared = try prepare(image, for: colour, withAlpha: false)
        return try prepared.image.flattened(background: prepared.values)
    }
}
