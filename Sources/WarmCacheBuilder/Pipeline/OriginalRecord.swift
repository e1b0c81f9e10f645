import Foundation
import WarmCache

/// What the originals cache knows about one original, kept in the cache's records (``CacheRecords``)
/// as a few text lines:
///
/// ```
/// warm-cache original 1
/// identifier<TAB>https://cdn.example.com/a.jpg
/// sha256<TAB>9f86d0…
/// bytes<TAB>48213
/// etag<TAB>"5e8a-1f"                       (when the server sent one)
/// last-modified<TAB>Tue, 03 Nov 2026 …      (when the server sent one)
/// checked-at<TAB>1795620258.369
/// stamp<TAB>48213 1834411 1795620258 369242887 1795620258 369242887   (size inode mtime ctime)
/// ```
///
/// A value runs to the end of its line (header values never hold line breaks). Read as bytes,
/// with no decoder to set up: a re-warm reads one record per source. Versions before this
/// format wrote the same fields as JSON files, which are still read once (``LegacyCacheFiles``).
struct OriginalRecord: Codable, Sendable, Equatable {
    var identifier: String
    var sha256: String
    var byteCount: Int
    var etag: String?
    var lastModified: String?
    /// When the server last confirmed these bytes (download or 304); drives `--max-age`. A later
    /// confirmation with unchanged validators is kept beside the record (``CacheRecords``).
    var checkedAt: Date
    /// The original file's stamp when its bytes were last known to hash to `sha256` (absent in
    /// records from older versions: those originals are hashed once more).
    var stamp: FileStamp?

    var validators: CacheValidators {
        CacheValidators(etag: etag, lastModified: lastModified)
    }

    init(identifier: String, sha256: String, byteCount: Int, etag: String?, lastModified: String?,
         checkedAt: Date, stamp: FileStamp? = nil) {
        self.identifier = identifier
        self.sha256 = sha256
        self.byteCount = byteCount
        self.etag = etag
        self.lastModified = lastModified
        self.checkedAt = checkedAt
        self.stamp = stamp
    }

    private static let header = "warm-cache original 1"

    /// The record's text (identifiers and HTTP header values hold no line breaks).
    var text: Data {
        var lines = [Self.header, "identifier\t\(identifier)", "sha256\t\(sha256)", "bytes\t\(byteCount)"]
        if let etag { lines.append("etag\t\(etag)") }
        if let lastModified { lines.append("last-modified\t\(lastModified)") }
        lines.append("checked-at\t\(checkedAt.timeIntervalSince1970)")
        if let stamp {
            lines.append("stamp\t\(stamp.text)")
        }
        return Data((lines.joined(separator: "\n") + "\n").utf8)
    }

    /// Reads ``text``; `nil` for anything else (torn, foreign or from another version).
    init?(text: Data) {
        var lines = text.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)
        guard lines.last?.isEmpty == true else { return nil }  // torn: the last line has no end
        lines.removeLast()
        guard let first = lines.first, String(decoding: first, as: UTF8.self) == Self.header else { return nil }
        var fields: [String: String] = [:]
        for line in lines.dropFirst() {
            guard let tab = line.firstIndex(of: UInt8(ascii: "\t")) else { return nil }
            fields[String(decoding: line[..<tab], as: UTF8.self)]
                = String(decoding: line[line.index(after: tab)...], as: UTF8.self)
        }
        guard let identifier = fields["identifier"], let sha256 = fields["sha256"],
              let byteCount = fields["bytes"].flatMap({ Int($0) }),
              let checkedAt = fields["checked-at"].flatMap({ TimeInterval($0) }) else { return nil }
        var stamp: FileStamp?
        if let text = fields["stamp"] {
            guard let read = FileStamp(text: text) else { return nil }
            stamp = read
        }
        self.init(identifier: identifier, sha256: sha256, byteCount: byteCount, etag: fields["etag"],
                  lastModified: fields["last-modified"], checkedAt: Date(timeIntervalSince1970: checkedAt), stamp: stamp)
    }
}
