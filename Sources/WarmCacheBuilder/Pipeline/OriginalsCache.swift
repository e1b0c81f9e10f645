import Crypto
import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import WarmCache

/// The persistent store of downloaded originals, shared by runs (and by CI cache steps).
///
/// Layout under the cache directory:
/// ```
/// originals/<aa>/<sha256 of the source identifier>.orig   the bytes as the server sent them
/// originals/<aa>/<sha256 of the source identifier>.record an OriginalRecord (a few text lines)
/// ```
/// A download lands in the `.orig` file atomically (the fetcher renames a complete, fsynced
/// file into place), and the record is written after it, atomically but without a flush (it is
/// rewritten on every revalidation). A record that does not decode, or whose file is missing or
/// whose bytes no longer hash to the recorded SHA-256 (a crash between the two steps, a power
/// loss, a truncated copy from a CI cache) is discarded, and the original is fetched again.
///
/// The record also holds the file's ``FileStamp`` as it was when saved: while the file still
/// has that stamp (not written, replaced or restored since) its bytes are known to be the
/// recorded ones without hashing them again, so a re-warm reads no original it does not render.
struct OriginalsCache: Sendable {
    let directory: URL
    private let directoryPath: String

    init(cacheDirectory: URL) {
        directory = cacheDirectory.appendingPathComponent("originals", isDirectory: true)
        directoryPath = directory.path
    }

    /// Where one source's original and its record are: computed once per source, as paths (a
    /// re-warm touches both files of every source, and building URLs would cost more than that).
    struct Entry: Sendable {
        let identifier: SourceIdentifier
        /// `originals/<aa>` (created on first save).
        let folderPath: String
        /// The `.orig` file.
        let dataPath: String
        /// The `.record` file.
        let recordPath: String
        /// Where versions before the text record kept it, as JSON: still read, removed on the next save.
        var legacyRecordPath: String { String(recordPath.dropLast(".record".count)) + ".json" }

        var dataURL: URL { URL(fileURLWithPath: dataPath, isDirectory: false) }
    }

    func entry(for identifier: SourceIdentifier) -> Entry {
        let name = ContentHash.sha256(Data(identifier.rawValue.utf8))
        let folder = directoryPath + "/" + name.prefix(2)
        let base = folder + "/" + name
        return Entry(identifier: identifier, folderPath: folder, dataPath: base + ".orig", recordPath: base + ".record")
    }

    /// The record of a cached original whose bytes are intact, or `nil` (and the broken entry
    /// removed) if there is none. The bytes are hashed only when the file's stamp is not the
    /// recorded one; the record returned holds the stamp under which they were checked, and
    /// `isSaved` says whether the record file already holds that stamp (then ``confirm(_:)``
    /// can stand in for ``save(_:at:)``).
    func validRecord(at entry: Entry) -> (record: OriginalRecord, isSaved: Bool)? {
        guard let (read, isCurrent) = Self.readRecord(of: entry), read.identifier == entry.identifier.rawValue else {
            return nil
        }
        var record = read
        // A confirmation moves the record file's modification time instead of rewriting it.
        let recordPath = isCurrent ? entry.recordPath : entry.legacyRecordPath
        if let confirmed = FileStamp(atPath: recordPath)?.modified, confirmed > record.checkedAt {
            record.checkedAt = confirmed
        }
        let found = FileStamp(atPath: entry.dataPath)
        if let stamp = record.stamp, stamp.size == record.byteCount, found == stamp {
            return (record, isCurrent)
        }
        guard let bytes = try? Data(contentsOf: entry.dataURL, options: .alwaysMapped),
              bytes.count == record.byteCount, ContentHash.sha256(bytes) == record.sha256 else {
            unlink(recordPath)
            return nil
        }
        // The stamp the hashed bytes had, if the file did not change while they were read.
        record.stamp = found.flatMap { FileStamp(atPath: entry.dataPath) == $0 ? $0 : nil }
        return (record, false)
    }

    /// Records that the server confirmed a saved record's original just now (a `304` with the
    /// same validators): the record file's modification time becomes its `checkedAt`, with no
    /// rewrite (a rename over an existing file costs a journal commit on ext4).
    func confirm(_ entry: Entry) throws {
        guard utimensat(AT_FDCWD, entry.recordPath, nil, 0) == 0 else {
            throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO)
        }
    }

    /// The record, and whether it is in the current format at ``Entry/recordPath`` (a legacy one
    /// is saved anew rather than confirmed).
    private static func readRecord(of entry: Entry) -> (OriginalRecord, isCurrent: Bool)? {
        if let text = DurableFile.contents(atPath: entry.recordPath) {
            return OriginalRecord(text: text).map { ($0, true) }
        }
        guard let json = DurableFile.contents(atPath: entry.legacyRecordPath) else { return nil }
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return (try? decoder.decode(OriginalRecord.self, from: json)).map { ($0, false) }
    }

    /// The stamp of the original file now in place, for the record of a download just renamed there.
    func stamp(for entry: Entry) -> FileStamp? {
        FileStamp(atPath: entry.dataPath)
    }

    /// Saves the record for an original already in place at the entry's `dataPath`.
    func save(_ record: OriginalRecord, at entry: Entry) throws {
        try DurableFile.ensureFolder(atPath: entry.folderPath)
        let temporary = entry.recordPath + ".\(UUID().uuidString).tmp"
        try DurableFile.write(record.text, toPath: temporary, flush: false)
        try DurableFile.move(atPath: temporary, toPath: entry.recordPath)
        unlink(entry.legacyRecordPath)
    }

    /// Removes `*.part` and `*.tmp` files that interrupted runs left behind. Only files older
    /// than `age` go, so a run sharing this cache directory concurrently keeps its own.
    func sweepLeftovers(olderThan age: TimeInterval = 3600) {
        let keys: [URLResourceKey] = [.contentModificationDateKey]
        guard let enumerator = FileManager.default.enumerator(at: directory, includingPropertiesForKeys: keys) else {
            return
        }
        let cutoff = Date().addingTimeInterval(-age)
        for case let url as URL in enumerator {
            let name = url.lastPathComponent
            guard name.hasSuffix(".part") || name.hasSuffix(".tmp") else { continue }
            let modified = (try? url.resourceValues(forKeys: Set(keys)))?.contentModificationDate ?? .distantPast
            if modified < cutoff {
                try? FileManager.default.removeItem(at: url)
            }
        }
    }
}
