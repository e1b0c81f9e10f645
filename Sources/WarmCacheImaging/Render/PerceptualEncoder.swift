import Foundation
import WarmCache

/// Encodes one source's variants that have a quality target, in the order the renderer hands
/// them over (smallest first).
///
/// Each search starts from the same guess whatever was searched before it (a variant's file
/// depends on its own pixels, settings and target only); what is shared between variants is
/// only the scoring reference of pixels they have in common. For an output with several candidate formats
/// (`formats: [smallest]`) it searches each in turn, most likely winner first, and stops a
/// candidate's search as soon as it provably cannot beat the smallest file found so far.
struct PerceptualEncoder {
    let name: String
    /// The last reference prepared, and the pixels it was prepared from: the outputs of one size
    /// in several formats (and a `smallest` output's candidates) share their pixels, and come
    /// one after another. Only one is kept: a reference takes ~48 bytes a pixel. The 8-bit pixels
    /// it was made from are kept with it, for the encoders that start from them (``WebPTrials``).
    private var lastReference: (pixels: ObjectIdentifier, flattened: Bool, reference: SSIMULACRA2Reference,
                                scoring: SSIMULACRA2Image)?

    init(name: String) {
        self.name = name
    }

    /// The reference for a candidate's prepared `image`, made from `pixels` (flattened or not),
    /// and the 8-bit pixels it was made from.
    private mutating func reference(for image: VipsImage, pixels: VipsImage, flattened: Bool)
        throws(VipsCallError) -> (reference: SSIMULACRA2Reference, scoring: SSIMULACRA2Image) {
        let identity = ObjectIdentifier(pixels)
        if let last = lastReference, last.pixels == identity, last.flattened == flattened {
            return (last.reference, last.scoring)
        }
        lastReference = nil  // its memory goes back to the pool for the new one
        let scoring = try image.scoringPixels(bands: image.hasAlpha ? 4 : 3)
        let reference = SSIMULACRA2Reference(scoring)
        lastReference = (identity, flattened, reference, scoring)
        return (reference, scoring)
    }

    /// Whether an encoding reached its variant's target (one without a target always does).
    private static func reached(_ variant: EncodedVariant) -> Bool {
        guard let target = variant.spec.qualityTarget, let found = variant.perceptual else { return true }
        return found.score >= Double(target)
    }

    /// Of two candidates' encodings: one that reaches the target beats one that does not; of two
    /// that do, the smaller; of two that do not, the better looking.
    private static func isBetter(_ candidate: EncodedVariant, than best: EncodedVariant) -> Bool {
        switch (reached(candidate), reached(best)) {
        case (true, false): return true
        case (false, true): return false
        case (true, true): return candidate.data.count < best.data.count
        case (false, false): return (candidate.perceptual?.score ?? 0) > (best.perceptual?.score ?? 0)
        }
    }

    /// The smallest encoding of one output among its candidates (all with the same pixels), each
    /// at the quality that reaches its target. A single candidate is simply searched.
    mutating func encodeSmallest(_ candidates: [(variant: RenderPlan.Variant, pixels: VipsImage)])
        throws(ImagingError) -> EncodedVariant {
        var best: EncodedVariant?
        for (variant, pixels) in candidates {
            let image = try VariantFinisher.prepare(pixels, variant: variant, name: name)
            guard let target = variant.spec.qualityTarget else {
                // A candidate without a target (lossless): its one encoding competes on size.
                let made = try VariantFinisher.finish(pixels, variant: variant, name: name)
                if best.map({ Self.isBetter(made, than: $0) }) ?? true { best = made }
                continue
            }
            let flattened = pixels.hasAlpha && !image.hasAlpha
            do {
                let (reference, scoring) = try self.reference(for: image, pixels: pixels, flattened: flattened)
                let search = QualitySearch(reference: reference, scoring: scoring, target: Double(target),
                                           settings: variant.settings, hasAlpha: image.hasAlpha)
                // Only a candidate that reached the target sets the size to beat.
                let bytesToBeat = candidates.count > 1 && best.map(Self.reached) == true ? best?.data.count : nil
                guard let outcome = try search.run(image, bytesToBeat: bytesToBeat) else { continue }
                let made = VariantFinisher.made(variant, image: image, data: outcome.data,
                                                perceptual: PerceptualEncoding(quality: outcome.quality,
                                                                               score: outcome.score))
                if best.map({ Self.isBetter(made, than: $0) }) ?? true {
                    best = made
                }
            } catch {
                throw ImagingError(.encodeFailed, source: name, call: error)
            }
        }
        guard let best else {  // unreachable: the first candidate is never pruned
            throw ImagingError(.encodeFailed, source: name, message: "no candidate format could be encoded")
        }
        return best
    }
}
