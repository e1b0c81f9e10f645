import Foundation
import WarmCache

/// Encodes one source's variants that have a quality target, in the order the renderer hands
/// them over (smallest first).
///
/// It carries what one variant teaches the next: per format, the quality the last search found
/// starts the next search of that format. For an output with several candidate formats
/// (`formats: [smallest]`) it searches each in turn, most likely winner first, and stops a
/// candidate's search as soon as it provably cannot beat the smallest file found so far.
struct PerceptualEncoder {
    let name: String
    /// Per format, the quality the last search found.
    private var hints: [ImageFormat: Int] = [:]

    init(name: String) {
        self.name = name
    }

    /// The smallest encoding of one output among its candidates (all with the same pixels), each
    /// at the quality that reaches its target. A single candidate is simply searched.
    mutating func encodeSmallest(_ candidates: [(variant: RenderPlan.Variant, pixels: VipsImage)])
        throws(ImagingError) -> EncodedVariant {
        var best: EncodedVariant?
        // Candidates with the same alpha handling score against the same reference.
        var references: [Bool: SSIMULACRA2Reference] = [:]
        for (variant, pixels) in candidates {
            let image = try VariantFinisher.prepare(pixels, variant: variant, name: name)
            let flattened = pixels.hasAlpha && !image.hasAlpha
            do {
                let reference: SSIMULACRA2Reference
                if let known = references[flattened] {
                    reference = known
                } else {
                    reference = SSIMULACRA2Reference(try image.scoringPixels(bands: image.hasAlpha ? 4 : 3))
                    references[flattened] = reference
                }
                let search = QualitySearch(reference: reference, target: Double(variant.spec.qualityTarget ?? 0),
                                           settings: variant.settings, hasAlpha: image.hasAlpha)
                let bytesToBeat = candidates.count > 1 ? best?.data.count : nil
                guard let outcome = try search.run(image, hint: hints[variant.settings.format],
                                                   bytesToBeat: bytesToBeat) else { continue }
                hints[variant.settings.format] = outcome.quality
                if best == nil || outcome.data.count < best!.data.count {
                    best = VariantFinisher.made(variant, image: image, data: outcome.data,
                                                perceptual: PerceptualEncoding(quality: outcome.quality,
                                                                               score: outcome.score))
                }
            } catch {
                throw ImagingError(.encodeFailed, source: name, call: error)
            }
        }
        guard let best else {
            throw ImagingError(.encodeFailed, source: name, message: "no candidate format could be encoded")
        }
        return best
    }
}
