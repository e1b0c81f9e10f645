import Foundation

/// What a warm knows about the index it last left in place: the index file's stamp and the
/// digest of its contents (``IndexBuilder/contentsDigest(createdAt:manifestFingerprint:shard:)``),
/// with the totals a commit reports.
///
/// A re-warm whose staged rows have the same digest, while the index file still has that stamp
/// (nothing wrote it since: see ``FileStamp``, the same trust as for blobs), changes nothing,
/// and its commit skips comparing the staged rows with the published ones (about a tenth of a
/// no-op re-warm of 8,000 sources). Any other index — copied, restored, edited, published by
/// `merge` — has another stamp, and is compared row by row as before.
///
/// Kept in the cache directory's records (``CacheRecords``), one per bundle path, as text:
/// `warm-cache published index 1`, then the stamp, the digest, and the four totals, a line each.
struct PublishedIndex: Equatable, Sendable {
    var stamp: FileStamp
    /// ``IndexBuilder/contentsDigest(createdAt:manifestFingerprint:shard:)`` of the rows it holds.
    var contentsDigest: String
    var sourceCount: Int
    var variantCount: Int
    var blobCount: Int
    var blobBytes: Int

    private static let header = "warm-cache published index 1"

    var text: String {
        [Self.header, stamp.text, contentsDigest, "\(sourceCount) \(variantCount) \(blobCount) \(blobBytes)"]
            .joined(separator: "\n")
    }
}

extension PublishedIndex {
    /// Reads ``text``; `nil` for anything else.
    init?(text: String) {
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        guard lines.count == 4, lines[0] == Self.header, let stamp = FileStamp(text: lines[1]),
              lines[2].count == 64, lines[2].allSatisfy(\.isHexDigit) else { return nil }
        let totals = lines[3].split(separator: " ").compactMap { Int($0) }
        guard totals.count == 4 else { return nil }
        self.init(stamp: stamp, contentsDigest: String(lines[2]), sourceCount: totals[0], variantCount: totals[1],
                  blobCount: totals[2], blobBytes: totals[3])
    }
}
