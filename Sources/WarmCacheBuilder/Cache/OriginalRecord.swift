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
/// with no decoder to set up: a re-warm reads one record per source.
struct OriginalRecord: Sendable, Equatable {
    var identifier: String
    var sha256: String
    var byteCount: Int
    var etag: String?
    var lastModified: String?
    /// When the server last confirmed these bytes (download or 304); drives `--max-age`. A later
    /// confirmation with unchanged validators is kept beside the record (``CacheRecords``).
    var checkedAt: Date
    /// The original file's stamp when its bytes were last known to hash to `sha256` (absent when
    /// it could not be read: the original is hashed once more).
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

    /// Reads ``text``; `nil` for anything else (torn, foreign or from another version). A field
    /// named twice counts once, with its last value; a field this version does not know is skipped.
    ///
    /// Parsed as bytes, with a `String` made only for the values kept: a re-warm reads one record
    /// per source, and splitting the text into a dictionary of strings cost more than the look-up.
    init?(text: Data) {
        let parsed: OriginalRecord? = text.withUnsafeBytes { raw in
            let bytes = raw.bindMemory(to: UInt8.self)
            guard bytes.last == Self.newline else { return nil }  // torn: the last line has no end
            var identifier: String?, sha256: String?, byteCount: Int?, checkedAt: TimeInterval?
            var etag: String?, lastModified: String?, stamp: FileStamp?
            var lineStart = 0
            var isFirst = true
            while lineStart < bytes.count {
                var lineEnd = lineStart
                while bytes[lineEnd] != Self.newline { lineEnd += 1 }  // the last byte is a newline
                let line = UnsafeBufferPointer(rebasing: bytes[lineStart..<lineEnd])
                lineStart = lineEnd + 1
                if isFirst {
                    guard line.elementsEqual(Self.header.utf8) else { return nil }
                    isFirst = false
                    continue
                }
                guard let tab = line.firstIndex(of: Self.tab) else { return nil }
                let name = UnsafeBufferPointer(rebasing: line[..<tab])
                let value = UnsafeBufferPointer(rebasing: line[(tab + 1)...])
                func text() -> String { String(decoding: value, as: UTF8.self) }
                // Field names are short enough to be stored inline: matching them allocates nothing.
                switch String(decoding: name, as: UTF8.self) {
                case "identifier": identifier = text()
                case "sha256": sha256 = text()
                case "bytes": byteCount = Int(text())
                case "etag": etag = text()
                case "last-modified": lastModified = text()
                case "checked-at": checkedAt = TimeInterval(text())
                case "stamp":
                    guard let read = FileStamp(bytes: value) else { return nil }
                    stamp = read
                default: break  // a field of a later version
                }
            }
            guard let identifier, let sha256, let byteCount, let checkedAt else { return nil }
            return OriginalRecord(identifier: identifier, sha256: sha256, byteCount: byteCount, etag: etag,
                                  lastModified: lastModified, checkedAt: Date(timeIntervalSince1970: checkedAt),
                                  stamp: stamp)
        }
        guard let parsed else { return nil }
        self = parsed
    }

    private static let newline = UInt8(ascii: "\n"), tab = UInt8(ascii: "\t")
}
