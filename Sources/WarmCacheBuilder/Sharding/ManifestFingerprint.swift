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
enum ManifestFingerprint {
    static func compute(_ sources: [PlannedSource]) -> String {
        var hasher = SHA256()
        func add(_ text: String) {
            hasher.update(data: Array(text.utf8))
            hasher.update(data: [0x0A])
        }
        add("warm-cache manifest fingerprint 1")
        for source in sources.sorted(by: { $0.identifier < $1.identifier }) {
            add("source \(source.identifier.rawValue) placeholders \(source.placeholders)")
            for variant in source.variants {
                let opaque = VariantKey(source: source.identifier, spec: variant.request.resolve(sourceHasAlpha: false))
                let alpha = VariantKey(source: source.identifier, spec: variant.request.resolve(sourceHasAlpha: true))
                add("variant \(variant.preset) \(opaque.rawValue) \(alpha.rawValue)")
            }
        }
        return ContentHash.hex(hasher.finalize())
    }
}
