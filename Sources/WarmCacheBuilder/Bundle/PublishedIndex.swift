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
/// `warm-cache published index 2`, then the stamp, the digest, the four totals, and the index's
/// ``BundlePayload`` as JSON, a line each (a no-op re-warm reports the payload without measuring
/// it again: the aggregate queries cost a third of such a re-warm of 8,000 sources).
struct PublishedIndex: Equatable, Sendable {
    var stamp: FileStamp
    /// ``IndexBuilder/contentsDigest(createdAt:manifestFingerprint:shard:)`` of the rows it holds.
    var contentsDigest: String
    var sourceCount: Int
    var variantCount: Int
    var blobCount: Int
    var blobBytes: Int
    /// What the index weighs, when the commit measured it.
    var payload: BundlePayload?

    private static let header = "warm-cache published index 2"

    var text: String {
        let payloadJSON = payload.flatMap { try? JSONEncoder().encode($0) }.map { String(decoding: $0, as: UTF8.self) }
        return [Self.header, stamp.text, contentsDigest, "\(sourceCount) \(variantCount) \(blobCount) \(blobBytes)",
                payloadJSON ?? "-"].joined(separator: "\n")
    }
}

extension PublishedIndex {
    /// Reads ``text``; `nil` for anything else.
    init?(text: String) {
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        guard lines.count == 5, lines[0] == Self.header, let stamp = FileStamp(text: lines[1]),
              lines[2].count == 64, lines[2].allSatisfy(\.isHexDigit) else { return nil }
        let totals = lines[3].split(separator: " ").compactMap { Int($0) }
        guard totals.count == 4 else { return nil }
        self.init(stamp: stamp, contentsDigest: String(lines[2]), sourceCount: totals[0], variantCount: totals[1],
                  blobCount: totals[2], blobBytes: totals[3],
                  payload: try? JSONDecoder().decode(BundlePayload.self, from: Data(lines[4].utf8)))
    }
}
