import WarmCache

/// How much smaller a JPEG source is decoded than it is stored.
///
/// libjpeg can decode at 1/2, 1/4 or 1/8 of the stored size by working on fewer DCT
/// coefficients, at a fraction of the cost of a full decode. libvips' `thumbnail` uses it only
/// while a factor of two is left for its resampler (a 3,600 px photo made 1,024 px wide is
/// decoded whole); with ``ImagingConfiguration/fastShrinkOnLoad`` the decoder takes the largest
/// power of two the decode size allows, as sharp does by default, and the resampler does the
/// rest. Measured in `docs/imaging.md`: 11 % less time on 40 photos made 1,024 px wide and
/// smaller, for pixels that differ from libvips' rule less than JPEG quality 80 changes them.
enum JPEGShrinkOnLoad {
    /// The factor to decode a source at (1, 2, 4 or 8) for a decode of `target` upright pixels;
    /// 1 leaves the choice to libvips.
    static func factor(source: SourceImageInfo, target: PixelSize, fast: Bool) -> Int32 {
        guard fast, source.loader == "jpeg", target.width > 0, target.height > 0 else { return 1 }
        let room = min(Double(source.pixelWidth) / Double(target.width),
                       Double(source.pixelHeight) / Double(target.height))
        return [8, 4, 2].first { room >= Double($0) } ?? 1
    }
}
