import Foundation
import WarmCache

/// The persistent store of downloaded originals, shared by runs (and by CI cache steps).
///
/// Layout under the cache directory:
/// ```
/// originals/<aa>/<sha256 of the source identifier>.orig   the bytes as the server sent them
/// records.sqlite                                          an OriginalRecord per original (CacheRecords)
/// ```
/// A download lands in the `.orig` file atomically (the fetcher renames a complete, fsynced
/// file into place), and its record is saved after it. A record that does not decode, or whose
/// file is missing or whose bytes no longer hash to the recorded SHA-256 (a crash between the
/// two steps, a power loss, a truncated copy from a CI cache) is discarded, and the original is
/// fetched again.
///
/// The record also holds the file's ``FileStamp`` as it was when saved: while the file still
/// has that stamp (not written, replaced or restored since) its bytes are known to be the
/// recorded ones without hashing them again, so a re-warm reads no original it does not render.
struct OriginalsCache: Sendable {
    let directory: URL
    private let directoryPath: String
    let records: CacheRecords
    /// `originals/` held open when it exists at the start (a re-warm checks every original's stamp).
    private let folder: OpenFolder?

    init(cacheDirectory: URL, records: CacheRecords) {
        directory = cacheDirectory.appendingPathComponent("originals", isDirectory: true)
        directoryPath = directory.path
        self.records = records
        folder = OpenFolder(path: directoryPath)
    }

    /// Where one source's original is and the name of its record: computed once per source, as
    /// paths (building URLs would cost more than a re-warm's whole look-up).
    struct Entry: Sendable {
        let identifier: SourceIdentifier
        /// The SHA-256 of the identifier: the `.orig` file's name and the record's key.
        let name: String
        /// `originals/<aa>` (created by the fetcher).
        let folderPath: String
        /// The `.orig` file.
        let dataPath: String
        /// The `.orig` file's path relative to `originals/`.
        let relativePath: String

        var dataURL: URL { URL(fileURLWithPath: dataPath, isDirectory: false) }
    }

    func entry(for identifier: SourceIdentifier) -> Entry {
        let name = ContentHash.sha256(Data(identifier.rawValue.utf8))
        let relativePath = name.prefix(2) + "/" + name + ".orig"
        return Entry(identifier: identifier, name: name, folderPath: directoryPath + "/" + name.prefix(2),
                     dataPath: directoryPath + "/" + relativePath, relativePath: relativePath)
    }

    /// The stamp of the entry's `.orig` file now, or `nil` if there is none.
    private func currentStamp(_ entry: Entry) -> FileStamp? {
        if let folder { return folder.stamp(entry.relativePath) }
        return FileStamp(atPath: entry.dataPath)
    }

    /// The record of a cached original whose bytes are intact, or `nil` (and the broken record
    /// removed) if there is none. The bytes are hashed only when the file's stamp is not the
    /// recorded one; the record returned holds the stamp under which they were checked, and
    /// `isSaved` says whether the saved record already holds that stamp (then ``confirm(_:)``
    /// can stand in for ``save(_:at:)``). Without `includingConfirmations`, the record's
    /// `checkedAt` is when it was saved, not when a `304` last confirmed it (see
    /// ``CacheRecords/original(named:includingConfirmations:)``).
    func validRecord(at entry: Entry, includingConfirmations: Bool = true)
        -> (record: OriginalRecord, isSaved: Bool)? {
        guard let (text, confirmedAt) = records.original(named: entry.name,
                                                         includingConfirmations: includingConfirmations),
              var record = OriginalRecord(text: text), record.identifier == entry.identifier.rawValue else {
            return nil
        }
        if let confirmedAt, confirmedAt > record.checkedAt {
            record.checkedAt = confirmedAt
        }
        let found = currentStamp(entry)
        if let stamp = record.stamp, stamp.size == record.byteCount, found == stamp {
            return (record, true)
        }
        guard let bytes = try? Data(contentsOf: entry.dataURL, options: .alwaysMapped),
              bytes.count == record.byteCount, ContentHash.sha256(bytes) == record.sha256 else {
            records.removeOriginal(named: entry.name)
            return nil
        }
        // The stamp the hashed bytes had, if the file did not change while they were read.
        record.stamp = found.flatMap { currentStamp(entry) == $0 ? $0 : nil }
        return (record, false)
    }

    /// Records that the server confirmed a saved record's original just now (a `304` with the
    /// same validators), without rewriting the record: `--max-age` counts from this moment.
    func confirm(_ entry: Entry) throws {
        try records.confirmOriginal(named: entry.name, at: Date())
    }

    /// When a `304` last confirmed the entry's saved record, if one did since it was saved.
    func lastConfirmed(_ entry: Entry) -> Date? {
        records.original(named: entry.name)?.confirmedAt
    }

    /// The stamp of the original file now in place, for the record of a download just renamed there.
    func stamp(for entry: Entry) -> FileStamp? {
        currentStamp(entry)
    }

    /// Saves the record for an original already in place at the entry's `dataPath`.
    func save(_ record: OriginalRecord, at entry: Entry) throws {
        try records.saveOriginal(record.text, named: entry.name)
    }

    /// Removes `*.part` and `*.tmp` files that interrupted runs left behind. Only files older
    /// than `age` go, so a run sharing this cache directory concurrently keeps its own. Reads
    /// the fan-out folders' names only (a re-warm of thousands of sources lists them all) and
    /// looks at the dates of leftovers alone.
    func sweepLeftovers(olderThan age: TimeInterval = 3600) {
        guard let fanOut = try? FileManager.default.contentsOfDirectory(atPath: directoryPath) else { return }
        let cutoff = Date().addingTimeInterval(-age)
        for folder in fanOut {
            let folderPath = directoryPath + "/" + folder
            for name in (try? FileManager.default.contentsOfDirectory(atPath: folderPath)) ?? []
                where name.hasSuffix(".part") || name.hasSuffix(".tmp") {
                let path = folderPath + "/" + name
                if let modified = FileStamp(atPath: path)?.modified, modified < cutoff {
                    unlink(path)
                }
            }
        }
    }
}
