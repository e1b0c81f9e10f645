import WarmCache

extension RenderPlan {
    /// What makes an output's bytes: per candidate, its pixels, its encoder settings, its target
    /// and the matte it is flattened onto. Outputs that agree on all of it (two scales clamped to
    /// the same pixels) come out as the same file.
    private struct OutputIdentity: Hashable {
        var recipe: PixelRecipe
        var settings: EncoderSettings
        var target: Int?
        var matte: RGBAColor
    }

    /// Per output whose bytes an earlier output already makes, that output: it is encoded once.
    func sameOutputs() -> [Int: Int] {
        var candidates = [[OutputIdentity]](repeating: [], count: outputCount)
        for variant in variants {
            candidates[variant.output].append(OutputIdentity(
                recipe: variant.recipe, settings: variant.settings, target: variant.spec.qualityTarget,
                matte: VariantFinisher.matte(for: variant.spec)))
        }
        var first: [[OutputIdentity]: Int] = [:]
        var copies: [Int: Int] = [:]
        for (output, identity) in candidates.enumerated() {
            if let original = first[identity] { copies[output] = original } else { first[identity] = output }
        }
        return copies
    }

    /// `encoded`, made for `original`, as the result of `output` (the same bytes under its own
    /// spec: the candidate at the same position in its group).
    func sharing(_ encoded: EncodedVariant, from original: Int, with output: Int) -> EncodedVariant {
        let originals = variants.filter { $0.output == original }
        let own = variants.filter { $0.output == output }
        var shared = encoded
        if let position = originals.firstIndex(where: { $0.spec == encoded.spec }), position < own.count {
            shared.spec = own[position].spec
        }
        return shared
    }
}
