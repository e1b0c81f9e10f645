/// Applies a variant's processors, in order, after sizing.
enum ProcessorApplication {
    static func apply(_ processors: [PixelProcessor], to image: VipsImage) throws(VipsCallError) -> VipsImage {
        var image = image
        for processor in processors {
            image = try apply(processor, to: image)
        }
        return image
    }

    static func apply(_ processor: PixelProcessor, to image: VipsImage) throws(VipsCallError) -> VipsImage {
        switch processor {
        case .roundCorners(let radius):
            // The mask becomes (or multiplies) the alpha channel.
            return try image.masked(by: RoundedCornerMask.coverage(size: image.size, radius: radius))
        case .blur(let sigma):
            return try image.blurred(sigma: sigma)
        case .grayscale:
            // Through one grey band and back, so the output is an ordinary sRGB image.
            return try image.converted(to: .bw).converted(to: .srgb)
        case .flatten(let background):
            return try ColourFill.flatten(image, onto: background)
        }
    }
}
