import WarmCache

/// What one render call will do: a recipe and encoder settings per spec, and which decode of
/// the source each recipe (and the placeholder) is derived from.
///
/// With ``ImagingConfiguration/cascade`` on, the decodes are the steps of a ladder that depends
/// on the source alone: step `k` is the source at 1/2^k of its size. Each recipe is resampled
/// from the smallest step that still covers it, so its pixels never depend on what else the
/// render asks for. A JPEG source shrinks on load straight to the steps down to the first that
/// fits in ``Ladder/halvingSide`` (at most 1/8); every other step is the step above it halved by
/// 2x2 means (``derivedFrom``). With it off, each distinct size gets its own decode straight
/// from the source.
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
    /// Ladder steps made by halving the step above them rather than by decoding the source.
    var derivedFrom: [Decode: Decode] = [:]
    /// How many variants use each recipe; shared recipes are computed into memory once.
    var recipeUses: [PixelRecipe: Int]
    /// How many recipes (and the placeholder) read each decode; a decode is freed after its last use.
    var decodeUses: [Decode: Int]
    /// Where the placeholder's thumbnail comes from, when one is requested.
    var placeholderDecode: Decode?
    /// Where the probe comes from (the source at ``probeSize(source:)``, which starts the quality
    /// searches of the larger variants), when a variant with a quality target needs it: the
    /// smallest step the decoder made, never a halved one (from halved steps the probe needed
    /// higher settings than the larger variants it predicts, and their searches more encodes).
    var probeDecode: Decode?

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
        var ladder = Ladder(source: source, fastShrinkOnLoad: configuration.fastShrinkOnLoad)
        for recipe in recipes {
            decodeOf[recipe] = configuration.cascade
                ? ladder.step(recipe.colour, covering: recipe.fit.scaled)
                : Decode(colour: recipe.colour, size: baseSize(source: source.pixelSize, covering: [recipe.fit.scaled]))
        }
        var placeholderDecode: Decode?
        if let placeholderSize {
            placeholderDecode = configuration.cascade
                ? ladder.step(.sRGB, covering: placeholderSize)
                : Self.placeholderDecode(placeholderSize, among: Set(decodeOf.values))
        }
        var probeDecode: Decode?
        if variants.contains(where: Self.searchesFromProbe) {
            probeDecode = ladder.decodedStep(.sRGB, covering: probeSize(source: source.pixelSize))
        }
        var decodeUses: [Decode: Int] = [:]
        for decode in decodeOf.values { decodeUses[decode, default: 0] += 1 }
        if let placeholderDecode { decodeUses[placeholderDecode, default: 0] += 1 }
        if let probeDecode { decodeUses[probeDecode, default: 0] += 1 }
        // Each halved step reads the step above it once.
        for parent in ladder.derivedFrom.values { decodeUses[parent, default: 0] += 1 }
        return RenderPlan(variants: variants, decodeOf: decodeOf, derivedFrom: ladder.derivedFrom,
                          recipeUses: recipeUses, decodeUses: decodeUses,
                          placeholderDecode: placeholderDecode, probeDecode: probeDecode, outputCount: outputs.count)
    }

    /// The size of the probe: the source fitted inside 256x256 (never enlarged).
    static func probeSize(source: PixelSize) -> PixelSize {
        let scale = min(1, 256 / Double(max(source.width, source.height)))
        return PixelSize(width: max(1, Int((Double(source.width) * scale).rounded())),
                         height: max(1, Int((Double(source.height) * scale).rounded())))
    }

    /// The short side from which a variant's search starts from the probe: smaller ones (thumbnails)
    /// need much higher settings than the probe.
    static let probeMinimumSide = 150

    /// Whether a variant's search starts from the probe: it has a quality target and is large enough.
    static func searchesFromProbe(_ variant: Variant) -> Bool {
        variant.spec.qualityTarget != nil
            && min(variant.recipe.fit.output.width, variant.recipe.fit.output.height) >= probeMinimumSide
    }

    /// Without the ladder: the smallest decode made for the variants that covers the placeholder's
    /// thumbnail (so asking for it never adds a large decode), else one of its own.
    private static func placeholderDecode(_ size: PixelSize, among decodes: Set<Decode>) -> Decode {
        let large = decodes.filter { $0.colour == .sRGB && $0.size.width >= size.width && $0.size.height >= size.height }
        return large.min { $0.size.area < $1.size.area } ?? Decode(colour: .sRGB, size: size)
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

extension RenderPlan {
    /// The ladder of decodes of one source: step `k` is the source at 1/2^k (rounded down), made
    /// by the decoder for a JPEG's steps down to the first that fits in ``halvingSide``, by
    /// halving the step above (2x2 means, ``VipsImage/halved()``) for the rest: one decode and
    /// cheap halvings serve every variant up to that size. Which steps a render uses depends on
    /// its recipes; what each step holds depends on the source only.
    struct Ladder {
        let source: SourceImageInfo
        /// The steps decoded straight from the source; the others are halved from the one above.
        let decodedSteps: ClosedRange<Int>
        private(set) var derivedFrom: [Decode: Decode] = [:]

        init(source: SourceImageInfo, fastShrinkOnLoad: Bool) {
            self.source = source
            decodedSteps = fastShrinkOnLoad && source.loader == "jpeg"
                ? 0...min(3, Self.firstStep(source: source.pixelSize, within: Self.halvingSide)) : 0...0
        }

        /// The smallest step that covers `size`, noting the steps it is halved from.
        mutating func step(_ colour: ColourMode, covering size: PixelSize) -> Decode {
            let level = Self.level(source: source.pixelSize, covering: size)
            var decode = Decode(colour: colour, size: Self.size(source: source.pixelSize, level: level))
            let first = decode
            var step = level
            while step > decodedSteps.upperBound {
                let parent = Decode(colour: colour, size: Self.size(source: source.pixelSize, level: step - 1))
                derivedFrom[decode] = parent
                decode = parent
                step -= 1
            }
            return first
        }

        /// A JPEG shrinks on load to the steps above the first that fits in this many pixels a
        /// side, and to that one; the steps below it are halved from it (one decode serves every
        /// variant up to this size).
        static let halvingSide = 2048

        /// The first step whose longer side is at most `side`.
        static func firstStep(source: PixelSize, within side: Int) -> Int {
            var level = 0
            while level < 16, max(source.width >> level, source.height >> level) > side { level += 1 }
            return level
        }

        /// The smallest step decoded straight from the source that covers `size`.
        func decodedStep(_ colour: ColourMode, covering size: PixelSize) -> Decode {
            let level = min(Self.level(source: source.pixelSize, covering: size), decodedSteps.upperBound)
            return Decode(colour: colour, size: Self.size(source: source.pixelSize, level: level))
        }

        /// The source at 1/2^`level`, rounded down (never below one pixel).
        static func size(source: PixelSize, level: Int) -> PixelSize {
            PixelSize(width: max(1, source.width >> level), height: max(1, source.height >> level))
        }

        /// The highest step whose size still covers `size` (0, the source, when none smaller does).
        static func level(source: PixelSize, covering size: PixelSize) -> Int {
            var level = 0
            while level < 16 {
                let next = Self.size(source: source, level: level + 1)
                guard next.width >= size.width, next.height >= size.height, next != Self.size(source: source, level: level)
                else { break }
                level += 1
            }
            return level
        }
    }
}
