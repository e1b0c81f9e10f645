import Foundation
import WarmCache
import WarmCacheImaging

/// JSON for `warm-cache plan --json` (docs/json.md). Tokens are the ones cache keys use (`cover`, `round(24)`),
/// header values print as `<redacted>`, and optional fields are omitted when unset.
extension WarmPlan: Encodable {
    private enum CodingKeys: String, CodingKey {
        case manifest, output, fingerprint, shard, fetch, summary, sources, warnings
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(manifestURL.path, forKey: .manifest)
        try container.encode(output.path, forKey: .output)
        try container.encode(fingerprint, forKey: .fingerprint)
        try container.encodeIfPresent(shard?.description, forKey: .shard)
        try container.encode(fetch, forKey: .fetch)
        try container.encode(summary, forKey: .summary)
        try container.encode(sources, forKey: .sources)
        try container.encode(warnings.map(\.description), forKey: .warnings)
    }
}

extension PlannedSource: Encodable {
    private enum CodingKeys: String, CodingKey {
        case identifier, location, placeholders, variants, listedAt
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(identifier.rawValue, forKey: .identifier)
        // The URL or the absolute file path, as the warm report's `location`.
        switch location {
        case .remote(let url): try container.encode(url.absoluteString, forKey: .location)
        case .file(let url): try container.encode(url.path, forKey: .location)
        }
        try container.encode(placeholders, forKey: .placeholders)
        try container.encode(variants, forKey: .variants)
        try container.encode(manifestLocation.description, forKey: .listedAt)
    }
}

extension PlannedVariant: Encodable {
    private enum CodingKeys: String, CodingKey {
        case preset, width, height, scale, fit, gravity, background, upscale, format, quality
        case qualityTarget, candidates, alphaCandidates, options, processors
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(preset, forKey: .preset)
        try container.encodeIfPresent(request.width, forKey: .width)
        try container.encodeIfPresent(request.height, forKey: .height)
        try container.encode(request.scale, forKey: .scale)
        try container.encode(request.fit.kind.rawValue, forKey: .fit)
        try container.encodeIfPresent(request.fit.gravity?.rawValue, forKey: .gravity)
        try container.encodeIfPresent(request.fit.background?.description, forKey: .background)
        try container.encode(request.allowUpscale, forKey: .upscale)
        try container.encode(request.format.description, forKey: .format)
        let quality = Dictionary(uniqueKeysWithValues: request.quality.map { ($0.key.rawValue, $0.value) })
        if !quality.isEmpty { try container.encode(quality, forKey: .quality) }
        if case .smallest(let opaque, let alpha) = request.format {
            try container.encode(opaque.map(\.rawValue), forKey: .candidates)
            try container.encode(alpha.map(\.rawValue), forKey: .alphaCandidates)
            try container.encode(request.qualityTarget, forKey: .qualityTarget)
        } else if request.quality.values.contains(.perceptual) {
            try container.encode(request.qualityTarget, forKey: .qualityTarget)
        }
        if request.options != .default { try container.encode(request.options, forKey: .options) }
        if !request.processors.isEmpty { try container.encode(request.processors.map(\.token), forKey: .processors) }
    }
}
