import Foundation
import WarmCache

/// The last steps of a variant: matte for formats without alpha, metadata removal, encoding.
enum VariantFinisher {
    static func finish(_ pixels: VipsImage, variant: RenderPlan.Variant, name: String) throws(ImagingError)
        -> EncodedVariant {
        let image = try prepare(pixels, variant: variant, name: name)
        do {
            return made(variant, image: image, data: try Encoder.encode(image, settings: variant.settings))
        } catch {
            throw ImagingError(.encodeFailed, source: name, call: error)
        }
    }

    /// The pixels as the encoder receives them: flattened for a format without alpha, and without
    /// metadata unless the encoder strips it itself.
    static func prepare(_ pixels: VipsImage, variant: RenderPlan.Variant, name: String) throws(ImagingError)
        -> VipsImage {
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
        return image
    }

    /// The encoded variant for `data`, encoded from `image`.
    static func made(_ variant: RenderPlan.Variant, image: VipsImage, data: Data,
                     perceptual: PerceptualEncoding? = nil) -> EncodedVariant {
        let size = image.size
        return EncodedVariant(spec: variant.spec, pixelWidth: size.width, pixelHeight: size.height,
                              hasAlpha: image.hasAlpha, data: data, perceptual: perceptual)
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
