import WarmCache

/// Executes a ``RenderPlan`` for one source inside one render call.
///
/// Decodes each planned decode once, derives every recipe's pixels from its decode, and keeps
/// decodes and shared recipe pixels in memory only while something still needs them.
final class VariantRenderer {
    private let plan: RenderPlan
    private let source: SourceImageInfo
    private let hasSRGBProfile: Bool
    private let name: String
    private let decoder: SourceDecoder
    private let passthrough: SourcePassthrough
    private var decodes: [RenderPlan.Decode: VipsImage] = [:]
    private var decodeUsesLeft: [RenderPlan.Decode: Int]
    /// Called as each output is encoded (progress: a render of many variants can take minutes).
    var onVariant: (() -> Void)?

    init(plan: RenderPlan, source: SourceImageInfo, hasSRGBProfile: Bool, name: String, decoder: SourceDecoder,
         passthrough: SourcePassthrough) {
        self.plan = plan
        self.passthrough = passthrough
        self.source = source
        self.hasSRGBProfile = hasSRGBProfile
        self.name = name
        self.decoder = decoder
        self.decodeUsesLeft = plan.decodeUses
    }

    /// The requested placeholders, or an empty one if the plan has none.
    func placeholder(_ kinds: PlaceholderKinds) throws(ImagingError) -> ImagePlaceholder {
        guard let decode = plan.placeholderDecode else { return ImagePlaceholder() }
        let base = try decoded(decode)
        defer { release(decode) }
        return try PlaceholderRenderer.make(kinds, from: base,
                                            thumbnailSize: PlaceholderRenderer.thumbnailSize(for: source.pixelSize),
                                            name: name)
    }

    /// Every planned output, encoded, in plan order.
    ///
    /// Recipes are rendered largest first, each resampled from its step of the plan's ladder
    /// (the source halved as often as the recipe allows), so that its pixels depend on its own
    /// recipe only. Variants at a fixed quality are encoded as soon as their pixels exist.
    /// Variants with a quality target keep their pixels in memory and are encoded afterwards,
    /// smallest first; an output whose candidates are another output's (two scales clamped to
    /// the same pixels) is encoded once and shared. An output that keeps the source's pixels is
    /// never stored larger than the source's own file (``SourcePassthrough``).
    func renderAll() throws(ImagingError) -> [EncodedVariant] {
        var recipeUses = plan.recipeUses
        var shared: [PixelRecipe: VipsImage] = [:]
        var encoded: [EncodedVariant?] = Array(repeating: nil, count: plan.outputCount)
        var perceptual: [(index: Int, pixels: VipsImage)] = []
        let copies = plan.sameOutputs()
        for variant in plan.variants where copies[variant.output] != nil {
            recipeUses[variant.recipe, default: 1] -= 1
        }
        // Outputs with several candidate formats are chosen among after encoding, like targets.
        var candidateCounts = [Int](repeating: 0, count: plan.outputCount)
        for variant in plan.variants { candidateCounts[variant.output] += 1 }
        // Largest first; equal sizes in plan order (a total order: the same plan renders the same way).
        let order = plan.variants.indices.sorted { a, b in
            let (areaA, areaB) = (plan.variants[a].recipe.fit.scaled.area, plan.variants[b].recipe.fit.scaled.area)
            return areaA != areaB ? areaA > areaB : a < b
        }
        for index in order where copies[plan.variants[index].output] == nil {
            let variant = plan.variants[index]
            let recipe = variant.recipe
            let searches = variant.spec.qualityTarget != nil || candidateCounts[variant.output] > 1
            let pixels: VipsImage
            if let cached = shared[recipe] {
                pixels = cached
            } else {
                // A search encodes the pixels several times: they must be in memory.
                pixels = try render(recipe, shared: searches || (recipeUses[recipe] ?? 0) > 1)
                shared[recipe] = pixels
            }
            recipeUses[recipe, default: 1] -= 1
            if recipeUses[recipe] == 0 { shared[recipe] = nil }
            if searches {
                perceptual.append((index, pixels))
            } else {
                encoded[variant.output] = try VariantFinisher.finish(pixels, variant: variant, name: name)
                onVariant?()
            }
        }
        if !perceptual.isEmpty {
            try encodePerceptual(perceptual, into: &encoded)
        }
        for output in encoded.indices {
            guard let made = encoded[output] else { continue }
            encoded[output] = passthrough.smaller(made, candidates: plan.variants.filter { $0.output == output })
        }
        for (output, original) in copies {
            encoded[output] = encoded[original].map { plan.sharing($0, from: original, with: output) }
            onVariant?()
        }
        return encoded.compactMap { $0 }
    }

    /// Encodes the variants with a quality target, smallest first, one output at a time: each
    /// candidate format is searched, and an output with several keeps the smallest file.
    private func encodePerceptual(_ pending: [(index: Int, pixels: VipsImage)],
                                  into encoded: inout [EncodedVariant?]) throws(ImagingError) {
        let byOutput = Dictionary(grouping: pending) { plan.variants[$0.index].output }
        let outputs = byOutput.keys.sorted { a, b in
            let areaA = plan.variants[byOutput[a]![0].index].recipe.fit.scaled.area
            let areaB = plan.variants[byOutput[b]![0].index].recipe.fit.scaled.area
            return areaA != areaB ? areaA < areaB : a < b
        }
        var search = PerceptualEncoder(name: name, probe: try probe())
        for output in outputs {
            let candidates = byOutput[output]!.sorted { $0.index < $1.index }
            encoded[output] = try search.encodeSmallest(candidates.map { (plan.variants[$0.index], $0.pixels) })
            onVariant?()
        }
    }

    /// The source at the probe size, in memory, when the plan has one.
    private func probe() throws(ImagingError) -> VipsImage? {
        guard let decode = plan.probeDecode else { return nil }
        let base = try decoded(decode)
        defer { release(decode) }
        do {
            return try base.resized(to: RenderPlan.probeSize(source: source.pixelSize)).copiedToMemory()
        } catch {
            throw ImagingError(.processingFailed, source: name, call: error)
        }
    }

    /// A decode, computed on first use: from the source, or halved from the ladder's step above.
    private func decoded(_ decode: RenderPlan.Decode) throws(ImagingError) -> VipsImage {
        if let image = decodes[decode] { return image }
        let image: VipsImage
        if let parent = plan.derivedFrom[decode], decodes[parent] == nil, plan.derivedFrom[parent] == nil,
           decodeUsesLeft[parent] == 1 {
            // Only this step reads the decode above it (a PNG's full size, typically): decode and
            // halve in one pass, never holding the larger image whole. The same pixels either way.
            release(parent)
            image = try decoder.decode(size: parent.size, exportProfile: exportProfile(parent), halved: true)
        } else if let parent = plan.derivedFrom[decode] {
            let above = try decoded(parent)
            defer { release(parent) }
            do {
                image = try above.halved()
            } catch {
                throw ImagingError(.processingFailed, source: name, call: error)
            }
        } else {
            image = try decoder.decode(size: decode.size, exportProfile: exportProfile(decode))
        }
        decodes[decode] = image
        return image
    }

    private func exportProfile(_ decode: RenderPlan.Decode) -> String? {
        decode.colour.exportProfile(for: source, hasSRGBProfile: hasSRGBProfile)
    }

    /// Marks one use of a decode done; the last use frees it (images derived from it keep
    /// their own reference while they are still being encoded).
    private func release(_ decode: RenderPlan.Decode) {
        decodeUsesLeft[decode, default: 1] -= 1
        if decodeUsesLeft[decode] == 0 {
            decodes[decode] = nil
        }
    }

    /// Sizes, finishes and processes one recipe; computed into memory when several encodes read it.
    private func render(_ recipe: PixelRecipe, shared: Bool) throws(ImagingError) -> VipsImage {
        guard let decode = plan.decodeOf[recipe] else {
            throw ImagingError(.processingFailed, source: name, message: "no decode planned for a variant")
        }
        let base = try decoded(decode)
        defer { release(decode) }
        do {
            var image = try base.resized(to: recipe.fit.scaled)
            switch recipe.fit.finish {
            case .none:
                break
            case .crop(let rect):
                image = try image.cropped(to: rect)
            case .smartCrop(let size, let strategy):
                image = try image.smartCropped(to: size, strategy: strategy)
            case .embed(let canvas, let origin):
                let prepared = try ColourFill.prepare(image, for: recipe.padding ?? .transparent, withAlpha: true)
                image = try prepared.image.embedded(in: canvas, at: origin, background: prepared.values)
            }
            image = try ProcessorApplication.apply(recipe.processors, to: image)
            return shared ? try image.copiedToMemory() : image
        } catch {
            throw ImagingError(.processingFailed, source: name, call: error)
        }
    }
}
