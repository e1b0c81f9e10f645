import WarmCache

/// Everything that decides a variant's pixels (not its encoding): specs with equal recipes
/// share one rendered image, so a JPEG and a WebP of the same size are resampled once.
struct PixelRecipe: Hashable {
    var colour: ColourMode
    var fit: FitPlan
    /// The canvas colour of a `contain` fit.
    var padding: RGBAColor?
    /// The spec's processors with lengths converted to pixels.
    var processors: [PixelProcessor]
}

/// A ``Processor`` with its lengths in pixels (points x scale).
enum PixelProcessor: Hashable {
    case roundCorners(radius: Double)
    case blur(sigma: Double)
    case grayscale
    case flatten(background: RGBAColor)

    /// Converts a processor of a spec with this `scale`; `nil` for a non-positive or
    /// non-finite length.
    init?(_ processor: Processor, scale: Int) {
        switch processor {
        case .roundCorners(let radius):
            guard radius.isFinite, radius > 0 else { return nil }
            self = .roundCorners(radius: radius * Double(scale))
        case .blur(let sigma):
            guard sigma.isFinite, sigma > 0 else { return nil }
            self = .blur(sigma: sigma * Double(scale))
        case .grayscale:
            self = .grayscale
        case .flatten(let background):
            self = .flatten(background: background)
        }
    }
}

/// How a variant's colours are managed.
enum ColourMode: Hashable {
    /// Converted to sRGB (from an embedded profile or CMYK); the output carries no profile.
    case sRGB
    /// Left in the space of the source's embedded profile, which the output keeps
    /// (`EncodingOptions.keepICCProfile` on a source with an RGB or grey profile).
    case sourceProfile

    /// The mode for a spec rendered from `source`. CMYK always becomes sRGB (no common
    /// format stores CMYK); then the sRGB profile is what `keepICCProfile` keeps.
    static func of(_ spec: VariantSpec, source: SourceImageInfo) -> ColourMode {
        let keep = spec.options.keepICCProfile ?? false
        return keep && source.hasICCProfile && source.colorModel != .cmyk ? .sourceProfile : .sRGB
    }

    /// The profile the decoder converts into: `srgb` when the source has a profile to leave
    /// (or is CMYK), none when the pixels are already sRGB (no profile, or the standard sRGB
    /// one: a transform would change nothing but cost one per pixel) or stay in the source's profile.
    func exportProfile(for source: SourceImageInfo, hasSRGBProfile: Bool) -> String? {
        switch self {
        case .sRGB:
            return (source.hasICCProfile && !hasSRGBProfile) || source.colorModel == .cmyk ? "srgb" : nil
        case .sourceProfile: return nil
        }
    }
}
