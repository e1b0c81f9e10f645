import WarmCache

/// Computes placeholders from a tiny thumbnail (at most 100x100) of the source.
enum PlaceholderRenderer {
    /// The thumbnail size for a source: inside a 100x100 box, never upscaled.
    static func thumbnailSize(for source: PixelSize) -> PixelSize {
        FitGeometry.plan(source: source, box: (ThumbHash.maxSide, ThumbHash.maxSide), fit: .inside,
                         allowUpscale: false).output
    }

    /// Averages `base` (a decode) down to `thumbnailSize` (``PlaceholderThumbnail``) and computes
    /// `kinds` from its pixels.
    static func make(_ kinds: PlaceholderKinds, from base: VipsImage, thumbnailSize: PixelSize,
                     name: String) throws(ImagingError) -> ImagePlaceholder {
        let pixels: [UInt8]
        do {
            pixels = try PlaceholderThumbnail.rgba(of: base, size: thumbnailSize)
        } catch {
            throw ImagingError(.processingFailed, source: name, call: error)
        }
        return placeholder(kinds, width: thumbnailSize.width, height: thumbnailSize.height, rgba: pixels)
    }

    /// The placeholders of an RGBA image of at most 100x100.
    ///
    /// BlurHash has no alpha: transparent areas are composited over the average colour first,
    /// so they read as a neutral tint rather than the black hidden under them.
    static func placeholder(_ kinds: PlaceholderKinds, width: Int, height: Int, rgba: [UInt8]) -> ImagePlaceholder {
        var placeholder = ImagePlaceholder()
        let average = AverageColor.of(rgba: rgba)
        if kinds.contains(.averageColor) {
            placeholder.averageColor = average
        }
        if kinds.contains(.thumbHash) {
            placeholder.thumbHash = ThumbHash.encode(width: width, height: height, rgba: rgba)
        }
        if kinds.contains(.blurHash) {
            let components = width >= height ? (x: 4, y: 3) : (x: 3, y: 4)
            placeholder.blurHash = BlurHash.encode(width: width, height: height,
                                                   rgba: composited(rgba, over: average), components: components)
        }
        return placeholder
    }

    /// Opaque pixels: each one blended over `background` by its alpha.
    static func composited(_ rgba: [UInt8], over background: RGBAColor) -> [UInt8] {
        var output = rgba
        let backdrop = [background.red, background.green, background.blue]
        for offset in stride(from: 0, to: rgba.count, by: 4) {
            let alpha = Double(rgba[offset + 3]) / 255
            for channel in 0..<3 {
                let blended = Double(rgba[offset + channel]) * alpha + Double(backdrop[channel]) * (1 - alpha)
                output[offset + channel] = UInt8(blended.rounded())
            }
            output[offset + 3] = 255
        }
        return output
    }
}
