import Crypto
import WarmCache

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
            hasher.update(data: Array(text.utf8))
            hasher.update(data: [0x0A])
        }
        add("warm-cache manifest fingerprint 2")
        var digests: [[PlannedVariant]: String] = [:]
        var last: (variants: [PlannedVariant], digest: String)?
        for source in sources.sorted(by: { $0.identifier < $1.identifier }) {
            let variants: String
            if let last, last.variants == source.variants {
                variants = last.digest  // usually the very same list, compared without hashing
            } else if let known = digests[source.variants] {
                variants = known
            } else {
                variants = digest(source.variants)
                digests[source.variants] = variants
            }
            last = (source.variants, variants)
            add("source \(source.identifier.rawValue) placeholders \(source.placeholders) variants \(variants)")
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
