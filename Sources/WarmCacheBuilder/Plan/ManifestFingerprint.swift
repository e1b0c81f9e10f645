import Crypto
import WarmCache
import WarmCacheImaging

/// A digest of everything in a manifest that decides a bundle's contents: every source identifier
/// with its placeholders, and every variant with its preset, in the canonical key grammar (an
/// `auto` format contributes both of its possible formats).
///
/// Every warm records it in the index (`meta.manifest_fingerprint`), so `warm-cache merge` can
/// refuse parts warmed from different manifests. It is computed over the whole plan before any
/// sharding, so all shards of one manifest carry the same value, and it ignores what does not
/// change the bundle: formatting, comments, the order of entries, `fetch` settings, paths.
///
/// A key is its source's identifier followed by its spec, and the sources of one manifest entry
/// share one list of variants: so each distinct list is digested once (its specs in the key
/// grammar) and each source contributes its identifier, placeholders and its list's digest. A
/// million-URL manifest costs a million lines, not the 24 million keys it would take to render
/// every variant of every source both ways.
enum ManifestFingerprint {
    static func compute(_ sources: [PlannedSource]) -> String {
        var hasher = SHA256()
        func add(_ text: String) {
            var text = text
            text.withUTF8 { hasher.update(bufferPointer: UnsafeRawBufferPointer($0)) }
            hasher.update(data: [0x0A])
        }
        add("warm-cache manifest fingerprint 2")
        var digests: [[PlannedVariant]: String] = [:]
        // What follows the identifier on a source's line, for the last list of variants seen (usually
        // the very same list, compared without hashing) and placeholders.
        var last: (variants: [PlannedVariant], placeholders: PlaceholderKinds, tail: String)?
        // Sorted by identifier through their positions: sorting the sources themselves moves whole plans.
        let order = sources.indices.sorted { sources[$0].identifier < sources[$1].identifier }
        for index in order {
            let source = sources[index]
            let tail: String
            if let last, last.variants == source.variants, last.placeholders == source.placeholders {
                tail = last.tail
            } else {
                let variants: String
                if let known = digests[source.variants] {
                    variants = known
                } else {
                    variants = digest(source.variants)
                    digests[source.variants] = variants
                }
                tail = " placeholders \(source.placeholders) variants \(variants)"
            }
            last = (source.variants, source.placeholders, tail)
            add("source " + source.identifier.rawValue + tail)
        }
        return ContentHash.hex(hasher.finalize())
    }

    /// The digest of one list of variants: each one's preset and its specs for an opaque and a
    /// transparent source, as the key grammar writes them (after a placeholder source field).
    private static func digest(_ variants: [PlannedVariant]) -> String {
        let anySource = SourceIdentifier(verbatim: "")
        var hasher = SHA256()
        for variant in variants {
            let opaque = VariantKey(source: anySource, spec: variant.request.resolve(sourceHasAlpha: false))
            let alpha = VariantKey(source: anySource, spec: variant.request.resolve(sourceHasAlpha: true))
            hasher.update(data: Array("variant \(variant.preset) \(opaque.rawValue) \(alpha.rawValue)\n".utf8))
        }
        return ContentHash.hex(hasher.finalize())
    }
}
