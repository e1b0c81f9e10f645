import WarmCache

/// What one render call will do: a recipe and encoder settings per spec, and which decode of
/// the source each recipe (and the placeholder) is derived from.
///
/// With ``ImagingConfiguration/cascade`` on, each colour mode has one decode: shrink-on-load
/// to the largest size any recipe needs, from which every smaller variant is resampled. With it
/// off, each distinct size gets its own decode straight from the source.
struct RenderPlan {
    /// One requested variant, or one candidate format of a variant that keeps its smallest
    /// encoding.
    struct Variant {
        var spec: VariantSpec
        var recipe: PixelRecipe
        var settings: EncoderSettings
        /// The output this is (a candidate of): candidates of one output share their `output`.
        var output: Int
    }

    /// One decode of the source: its colour handling and upright pixel size.
    struct Decode: Hashable {
        var colour: ColourMode
        var size: PixelSize
    }

    var variants: [Variant]
    /// The decode each recipe is resampled from.
    var decodeOf: [PixelRecipe: Decode]
    /// How many variants use each recipe; shared recipes are computed into memory once.
    var recipeUses: [PixelRecipe: Int]
    /// How many recipes (and the placeholder) read each decode; a decode is freed after its last use.
    var decodeUses: [Decode: Int]
    /// Where the placeholder's thumbnail comes from, when one is requested.
    var placeholderDecode: Decode?

    /// The number of outputs (variants the render call returns).
    var outputCount: Int

    /// Plans `specs` for `source`, validating every spec first: one output per group of
    /// candidates (``VariantRequest/candidates(sourceHasAlpha:)``), usually a single spec.
    /// - Parameter placeholderSize: the placeholder thumbnail's size, if one is requested. It
    ///   reuses a decode that is large enough and never enlarges one, so asking for a
    ///   placeholder does not change any variant's bytes.
    static func make(_ outputs: [[VariantSpec]], source: SourceImageInfo, name: String,
                     configuration: ImagingConfiguration, capabilities: EncoderCapabilities,
                     placeholderSize: PixelSize? = nil) throws(ImagingError) -> RenderPlan {
        var variants: [Variant] = []
        var recipeUses: [PixelRecipe: Int] = [:]
        for (output, candidates) in outputs.enumerated() {
            for spec in candidates {
                try SpecValidation.validate(spec, name: name, capabilities: capabilities)
                let fit = FitGeometry.plan(source: source.pixelSize, spec: spec)
                for size in [fit.scaled, fit.output] where size.area > configuration.maxPixels {
                    throw ImagingError(.tooManyPixels, source: name, message:
                        "the variant needs \(size) pixels, over the limit of \(configuration.maxPixels)")
                }
                let processors = spec.processors.compactMap { PixelProcessor($0, scale: spec.scale) }
                let recipe = PixelRecipe(colour: ColourMode.of(spec, source: source), fit: fit,
                                         padding: spec.fit.background, processors: processors)
                variants.append(Variant(spec: spec, recipe: recipe,
                                        settings: .resolve(spec, defaults: configuration.encoderDefaults), output: output))
                recipeUses[recipe, default: 0] += 1
            }
        }

        let recipes = Set(recipeUses.keys)
        var decodeOf: [PixelRecipe: Decode] = [:]
        if configuration.cascade {
            let byColour = Dictionary(grouping: recipes, by: \.colour)
            for (colour, group) in byColour {
                let decode = Decode(colour: colour, size: baseSize(source: source.pixelSize, covering: group.map(\.fit.scaled)))
                for recipe in group { decodeOf[recipe] = decode }
            }
        } else {
            for recipe in recipes {
                decodeOf[recipe] = Decode(colour: recipe.colour,
                                          size: baseSize(source: source.pixelSize, covering: [recipe.fit.scaled]))
            }
        }
        var decodeUses: [Decode: Int] = [:]
        for decode in decodeOf.values { decodeUses[decode, default: 0] += 1 }

        var placeholderDecode: Decode?
        if let placeholderSize {
            let large = decodeUses.keys.filter {
                $0.colour == .sRGB && $0.size.width >= placeholderSize.width && $0.size.height >= placeholderSize.height
            }
            let decode = large.min { $0.size.area < $1.size.area } ?? Decode(colour: .sRGB, size: placeholderSize)
            decodeUses[decode, default: 0] += 1
            placeholderDecode = decode
        }
        return RenderPlan(variants: variants, decodeOf: decodeOf, recipeUses: recipeUses, decodeUses: decodeUses,
                          placeholderDecode: placeholderDecode, outputCount: outputs.count)
    }

    /// The decode size that covers every size in `sizes`: the smallest uniform downscale of the
    /// source at least as large as each (never more than the source; upscaling happens after).
    static func baseSize(source: PixelSize, covering sizes: [PixelSize]) -> PixelSize {
        let ratio = sizes.map { max(Double($0.width) / Double(source.width), Double($0.height) / Double(source.height)) }
            .max() ?? 1
        if ratio >= 1 { return source }
        let uniform = source.scaled(by: ratio)
        let width = sizes.map(\.width).max() ?? 1
        let height = sizes.map(\.height).max() ?? 1
        return PixelSize(width: min(source.width, max(uniform.width, width)),
                         height: min(source.height, max(uniform.height, height)))
    }
}
