import Foundation
import WarmCache

/// Encodes one source's variants that have a quality target, in the order the renderer hands
/// them over (smallest first).
///
/// A variant at least ``RenderPlan/probeMinimumSide`` on its short side starts its search from what a
/// search of the source's *probe* found with the same settings: the source at one fixed size
/// (``RenderPlan/probeSize(source:)``), whatever the manifest asks for, so that a variant's file
/// depends on its own pixels, settings and target only. Smaller variants (thumbnails need much
/// higher settings) start from the format's guess. The probe also chooses a larger AVIF variant's
/// chroma and, below `speed: smallest`, which of an output's candidate formats it tries
/// (``SearchSpeed``). For an output with several candidate formats (`formats: [smallest]`) it
/// searches each in turn, most likely winner first, and stops a candidate's search as soon as it
/// provably cannot beat the smallest file found so far.
struct PerceptualEncoder {
    let name: String
    /// The source at the probe size, when the plan has variants large enough to use it.
    let probe: VipsImage?
    /// Per setting searched (quality aside) and target, what the probe's search found.
    private var hints: [ProbeKey: QualitySearch.Hint] = [:]

    private struct ProbeKey: Hashable {
        var settings: EncoderSettings
        var target: Int
        var matte: RGBAColor
    }

    /// The last reference prepared, and the pixels it was prepared from: the outputs of one size
    /// in several formats (and a `smallest` output's candidates) share their pixels, and come
    /// one after another. Only one is kept: a reference takes ~48 bytes a pixel. The 8-bit pixels
    /// it was made from are kept with it, for the encoders that start from them (``WebPTrials``).
    private var lastReference: (pixels: ObjectIdentifier, flattened: Bool, reference: SSIMULACRA2Reference,
                                scoring: SSIMULACRA2Image)?

    init(name: String, probe: VipsImage?) {
        self.name = name
        self.probe = probe
    }

    /// What a full search of the probe found with `settings` (quality aside) for `variant`'s
    /// target, searched on first use.
    private mutating func hint(for variant: RenderPlan.Variant, settings: EncoderSettings, target: Int)
        throws(VipsCallError) -> QualitySearch.Hint? {
        guard let probe else { return nil }
        var keySettings = settings
        keySettings.quality = 0
        let key = ProbeKey(settings: keySettings, target: target, matte: VariantFinisher.matte(for: variant.spec))
        if let known = hints[key] { return known }
        let prepared: VipsImage
        do {
            prepared = try VariantFinisher.prepare(probe, variant: variant, name: name)
        } catch {
            return nil  // the variant's own preparation will say what is wrong
        }
        let scoring = try prepared.scoringPixels(bands: prepared.hasAlpha ? 4 : 3)
        let search = QualitySearch(reference: SSIMULACRA2Reference(scoring), scoring: scoring, target: Double(target),
                                   settings: settings, hasAlpha: prepared.hasAlpha)
        let found = try search.run(prepared, hint: nil)
        let hint = found.map {
            QualitySearch.Hint(quality: $0.quality, margin: max(0, $0.score - Double(target)), slope: $0.slope,
                               size: prepared.size, bytes: $0.data.count)
        }
        hints[key] = hint
        return hint
    }

    /// The settings a larger variant's candidate is searched with, and where its search starts:
    /// its own settings, except that AVIF without a chroma set takes whichever of 4:2:0 and 4:4:4
    /// reached the target in fewer bytes at the probe. With 4:2:0 comes the probe's 4:4:4 result,
    /// for a variant whose own colour edges turn out to need full chroma (``ChromaRoundTrip``).
    private mutating func probed(_ variant: RenderPlan.Variant, target: Int)
        throws(VipsCallError) -> (settings: EncoderSettings, hint: QualitySearch.Hint?, fullChroma: QualitySearch.Hint?) {
        let settings = variant.settings
        guard settings.choosesChromaPerImage else {
            return (settings, try hint(for: variant, settings: settings, target: target), nil)
        }
        var full = settings, subsampled = settings
        full.subsampling = .off
        subsampled.subsampling = .on
        let fullHint = try hint(for: variant, settings: full, target: target)
        if let subsampledHint = try hint(for: variant, settings: subsampled, target: target),
           subsampledHint.bytes < fullHint?.bytes ?? .max {
            return (subsampled, subsampledHint, fullHint)
        }
        return (full, fullHint, nil)
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

    /// One candidate, ready to search: its pixels prepared, its settings and where it starts.
    private struct Candidate {
        var variant: RenderPlan.Variant
        var pixels: VipsImage
        var image: VipsImage
        var settings: EncoderSettings
        var hint: QualitySearch.Hint?
        /// With a probe that chose 4:2:0 for AVIF, what it found at 4:4:4.
        var fullChroma: QualitySearch.Hint?
    }

    /// The candidates of one output prepared, and (for a larger variant below `smallest`) only
    /// those whose probe says they can win at the output's speed.
    private mutating func prepared(_ candidates: [(variant: RenderPlan.Variant, pixels: VipsImage)])
        throws(ImagingError) -> [Candidate] {
        var prepared: [Candidate] = []
        for (variant, pixels) in candidates {
            let image = try VariantFinisher.prepare(pixels, variant: variant, name: name)
            var candidate = Candidate(variant: variant, pixels: pixels, image: image, settings: variant.settings)
            // A larger variant follows the probe: its search starts from the probe's, and the probe
            // chooses its AVIF chroma and (below `smallest`) which candidates it tries.
            if let target = variant.spec.qualityTarget, probe != nil, RenderPlan.searchesFromProbe(variant) {
                do {
                    (candidate.settings, candidate.hint, candidate.fullChroma) = try probed(variant, target: target)
                } catch {
                    throw ImagingError(.encodeFailed, source: name, call: error)
                }
            }
            prepared.append(candidate)
        }
        let probeBytes = prepared.compactMap { $0.hint?.bytes }
        guard prepared.count > 1, probeBytes.count == prepared.count, let best = probeBytes.min() else { return prepared }
        let speed = prepared[0].settings.speed
        return prepared.filter { speed.tries(probeBytes: $0.hint!.bytes, best: best) }
    }

    /// The smallest encoding of one output among its candidates (all with the same pixels), each
    /// at the quality that reaches its target. A single candidate is simply searched.
    mutating func encodeSmallest(_ candidates: [(variant: RenderPlan.Variant, pixels: VipsImage)])
        throws(ImagingError) -> EncodedVariant {
        var best: EncodedVariant?
        let tried = try prepared(candidates)
        for candidate in tried {
            let (variant, pixels, image) = (candidate.variant, candidate.pixels, candidate.image)
            guard let target = variant.spec.qualityTarget else {
                // A candidate without a target (lossless): its one encoding competes on size.
                let made = try VariantFinisher.finish(pixels, variant: variant, name: name)
                if best.map({ Self.isBetter(made, than: $0) }) ?? true { best = made }
                continue
            }
            let flattened = pixels.hasAlpha && !image.hasAlpha
            do {
                let (reference, scoring) = try self.reference(for: image, pixels: pixels, flattened: flattened)
                var (settings, hint) = (candidate.settings, candidate.hint)
                if let fullChroma = candidate.fullChroma,
                   try ChromaRoundTrip.score(scoring, against: reference) < Double(target) + ChromaRoundTrip.headroom {
                    (settings.subsampling, hint) = (.off, fullChroma)
                }
                let search = QualitySearch(reference: reference, scoring: scoring, target: Double(target),
                                           settings: settings, hasAlpha: image.hasAlpha)
                // Only a candidate that reached the target sets the size to beat.
                let bytesToBeat = tried.count > 1 && best.map(Self.reached) == true ? best?.data.count : nil
                guard let outcome = try search.run(image, hint: hint, bytesToBeat: bytesToBeat) else { continue }
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
