import WarmCache

/// The last steps of a variant: matte for formats without alpha, metadata removal, encoding.
enum VariantFinisher {
    static func finish(_ pixels: VipsImage, variant: RenderPlan.Variant, name: String) throws(ImagingError)
        -> EncodedVariant {
        let settings = variant.settings
        var image = pixels
        do {
            if !settings.format.supportsAlpha, image.hasAlpha {
                image = try ColourFill.flatten(image, onto: matte(for: variant.spec))
            }
            if !settings.encoderStripsEverything {
                image = try image.strippingMetadata(keepICCProfile: settings.keepICCProfile)
            }
        } catch {
            throw ImagingError(.processingFailed, source: name, call: error)
        }
        do {
            let data = try Encoder.encode(image, settings: settings)
            let size = image.size
            return EncodedVariant(spec: variant.spec, pixelWidth: size.width, pixelHeight: size.height,
                                  hasAlpha: image.hasAlpha, data: data)
        } catch {
            throw ImagingError(.encodeFailed, source: name, call: error)
        }
    }

    /// The colour transparency is flattened onto for a format without alpha (JPEG): the last
    /// `flatten` processor's colour, or white. Never black, which is what dropping alpha shows.
    static func matte(for spec: VariantSpec) -> RGBAColor {
        for processor in spec.processors.reversed() {
            if case .flatten(let background) = processor { return background }
        }
        return .white
    }
}
