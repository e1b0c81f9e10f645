import Foundation
import WarmCache

/// What the `meta` table of an index holds, and the digest of an index's contents that a re-warm
/// compares instead of the index itself.
struct IndexMeta {
    /// The tool that writes the index, e.g. `warm-cache 0.1.0`.
    let generator: String

    /// The `meta` rows of an index of `sourceCount` sources and `variantCount` variants, sorted by
    /// key: the format's version, the generator and the counts, then `createdAt`,
    /// `manifestFingerprint` and `shard` when set.
    func rows(sourceCount: Int, variantCount: Int, createdAt: Date?, manifestFingerprint: String?,
              shard: Shard?) -> [(String, String)] {
        var meta: [(String, String)] = [
            (BundleFormat.MetaKey.formatMajor, String(BundleFormat.majorVersion)),
            (BundleFormat.MetaKey.formatMinor, String(BundleFormat.minorVersion)),
            (BundleFormat.MetaKey.generator, generator),
            (BundleFormat.MetaKey.sourceCount, String(sourceCount)),
            (BundleFormat.MetaKey.variantCount, String(variantCount)),
        ]
        if let createdAt {
            meta.append((BundleFormat.MetaKey.createdAt, ISO8601DateFormatter().string(from: createdAt)))
        }
        if let manifestFingerprint {
            meta.append((BundleFormat.MetaKey.manifestFingerprint, manifestFingerprint))
        }
        if let shard {
            meta.append((BundleFormat.MetaKey.shard, shard.description))
        }
        return meta.sorted(by: { $0.0 < $1.0 })
    }

    /// The digest of an index with the `meta` rows `meta` and the other rows `rows`: the SHA-256
    /// of a text that holds both, each `meta` row with the lengths of its key and value.
    static func digest(rows: RowsDigest, meta: [(String, String)]) -> String {
        var text = "rows \(rows.hex)\n"
        for (key, value) in meta {
            text += "meta \(key.count) \(key) \(value.utf8.count) \(value)\n"
        }
        return ContentHash.sha256(Data(text.utf8))
    }
}
