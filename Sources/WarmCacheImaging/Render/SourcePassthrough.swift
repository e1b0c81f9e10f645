import Foundation
import WarmCache

/// Never worse than the source: an output that shows exactly the source's pixels is stored as the
/// source's own file (its metadata removed) whenever that file is smaller than the encoding.
///
/// Re-encoding a photo at its own size cannot add detail, yet at a quality target it can cost
/// more bytes than the file it came from (a JPEG that was already compressed hard). An output
/// *keeps the source's pixels* when its recipe is the whole source at its upright size (no
/// resize, crop, canvas or processor) and the decode changes nothing: a single frame, 8 bits a
/// sample, RGB or grey, already sRGB (no profile, or the standard sRGB one) or left in the
/// profile the variant keeps (`keepICCProfile`). The file must also show those pixels on every
/// decoder once its metadata is gone: an EXIF orientation other than 1 rules it out (decoders
/// that ignore EXIF would show it turned, and removing EXIF would turn it for all).
///
/// Only an output with a candidate in the source's own format switches, and then to that
/// candidate's spec (the index row names the source's format): a `formats: [smallest]` output
/// whose platforms all decode that format, or a fixed-format output in that very format. A
/// `formats: [avif]` output stays AVIF. Formats: JPEG, PNG and WebP, whose metadata comes out
/// losslessly (``JPEGSegments``, ``PNGChunks``, ``WebPChunks``): EXIF, XMP, GPS, IPTC and comments
/// never pass through.
///
/// ```swift
/// let passthrough = SourcePassthrough(file: bytes, source: info, hasSRGBProfile: true)
/// let stored = passthrough.smaller(encoded, candidates: outputCandidates)
/// ```
struct SourcePassthrough {
    /// The encoded source, as opened.
    let file: Data
    let source: SourceImageInfo
    /// Whether the source's embedded profile is the standard sRGB one.
    let hasSRGBProfile: Bool

    /// `encoded`, or the source's own file under the output's candidate in the source's format
    /// when the output keeps the source's pixels and that file is smaller. Its perceptual record
    /// (for a quality target) is ``PerceptualEncoding/sourceKept``.
    /// - Parameter candidates: the output's candidates (one, or one per format of `smallest`).
    func smaller(_ encoded: EncodedVariant, candidates: [RenderPlan.Variant]) -> EncodedVariant {
        guard let format = source.format,
              let candidate = candidates.first(where: { $0.spec.format == format }), keepsSourcePixels(candidate),
              let stored = Self.strippedFile(file, format: format,
                                             keepICCProfile: candidate.recipe.colour == .sourceProfile),
              stored.count < encoded.data.count else { return encoded }
        return EncodedVariant(spec: candidate.spec, pixelWidth: source.pixelWidth, pixelHeight: source.pixelHeight,
                              hasAlpha: source.hasAlpha, data: stored,
                              perceptual: candidate.spec.qualityTarget == nil ? nil : .sourceKept)
    }

    /// Whether `variant`'s pixels are the source's decode, unchanged, and its file shows them.
    func keepsSourcePixels(_ variant: RenderPlan.Variant) -> Bool {
        let recipe = variant.recipe
        guard case .none = recipe.fit.finish, recipe.fit.scaled == source.pixelSize, recipe.processors.isEmpty,
              source.pageCount == 1, !source.isAnimated, source.orientation == 1,
              source.colorModel == .rgb || source.colorModel == .grey else { return false }
        // A 16-bit PNG decodes to 8 bits: its file holds more than the variant's pixels.
        if source.format == .png, (PNGChunks.bitDepth(of: file) ?? 16) > 8 { return false }
        switch recipe.colour {
        case .sRGB: return !source.hasICCProfile || hasSRGBProfile
        case .sourceProfile: return true  // the variant keeps the very profile the file has
        }
    }

    /// The source's file with its metadata removed without touching its pixels, the ICC profile
    /// kept only with `keepICCProfile`; `nil` for another format or a file that is not well formed.
    static func strippedFile(_ file: Data, format: ImageFormat, keepICCProfile: Bool) -> Data? {
        switch format {
        case .jpeg:
            return JPEGSegments.removingMetadata(from: file, keepICCProfile: keepICCProfile)
        case .png:
            return PNGChunks.removingMetadata(from: file, keepICCProfile: keepICCProfile)
        case .webp:
            // Unchanged when it has no metadata (the simple format) or is not well formed: checked.
            let stripped = WebPChunks.removingMetadata(from: file, keepICCProfile: keepICCProfile)
            let removed: Set<String> = keepICCProfile ? ["EXIF", "XMP "] : ["EXIF", "XMP ", "ICCP"]
            guard let chunks = WebPChunks.parse(stripped), !chunks.contains(where: { removed.contains($0.fourCC) })
            else { return nil }
            return stripped
        default:
            return nil
        }
    }
}
