import Foundation
import WarmCache

/// The cache directory's records in one SQLite file, `records.sqlite`: what the originals cache
/// knows about each original (``OriginalRecord``, keyed by the original's file name) and each
/// render memo entry (``RenderMemo``, keyed by its memo key). The values are the records' own
/// text formats; this type only stores them.
///
/// One database instead of a small file per record: a re-warm reads two records per source and
/// confirms one, which as files cost about ten system calls per source, and a cold run created
/// two files per source (on ext4 without a journal each creation scans the inode table for
/// recently freed inodes). As rows they are page look-ups and appends to the write-ahead log.
///
/// Written in WAL mode with `synchronous = NORMAL`: a commit appends to the log without a flush.
/// A power loss may lose the last commits (a lost record costs a download or a render next
/// time, never a wrong image: records are checked against the files they describe), not the
/// file. Several runs may share a cache directory at once: SQLite locks the file, and a writer
/// waits up to 30 s for another. A file that is not a readable database (torn by a partial
/// CI-cache restore, say) is replaced by an empty one when opened: its originals are downloaded
/// and its sources rendered again.
///
/// Confirmations (a `304` for an original on record, one per source of a re-warm) are the only
/// writes that are not committed at once: they are kept in memory and committed a few hundred
/// at a time, and by ``flush()`` at the end of a run: a commit per confirmation would append to the
/// log and take SQLite's locks once per source of a re-warm. A confirmation lost in a crash only
/// makes `--max-age` count from the confirmation before.
///
/// Thread-safe: one connection behind a lock (each call is a few microseconds).
final class CacheRecords: @unchecked Sendable {
    let path: String
    private let connection: Locked<SQLiteConnection>
    /// Confirmations not committed yet: record name and time in milliseconds.
    private let pendingConfirmations = Locked<[(name: String, milliseconds: Int64)]>([])
    private static let confirmationBatch = 512

    static let fileName = "records.sqlite"

    private static let setup = """
        PRAGMA journal_mode = WAL;
        PRAGMA synchronous = NORMAL;
        CREATE TABLE IF NOT EXISTS originals (
            name TEXT PRIMARY KEY,
            record BLOB NOT NULL,
            confirmed_at_ms INTEGER
        ) WITHOUT ROWID;
        CREATE TABLE IF NOT EXISTS renders (
            key TEXT PRIMARY KEY,
            entry BLOB NOT NULL
        ) WITHOUT ROWID;
        """

    /// Opens (or creates) the records of the cache directory `cacheDirectory`, creating the
    /// directory if needed. Records that earlier versions kept as one file each are moved in
    /// the first time (``LegacyCacheFiles``).
    init(cacheDirectory: URL) throws {
        try FileManager.default.createDirectory(at: cacheDirectory, withIntermediateDirectories: true)
        path = cacheDirectory.appendingPathComponent(Self.fileName).path
        let isNew = !FileManager.default.fileExists(atPath: path)
        let opened: SQLiteConnection
        do {
            opened = try Self.open(path)
        } catch let error as SQLiteError where error.isCorruption {
            for suffix in ["", "-wal", "-shm"] { unlink(path + suffix) }
            opened = try Self.open(path)
        }
        connection = Locked(opened)
        if isNew {
            LegacyCacheFiles(cacheDirectory: cacheDirectory).moveRecords(into: self)
        }
    }

    private static func open(_ path: String) throws -> SQLiteConnection {
        let connection = try SQLiteConnection(path: path, readOnly: false)
        try connection.execute("PRAGMA busy_timeout = 30000")
        try connection.execute(setup)
        return connection
    }

    // MARK: Originals

    /// An original's record and when a `304` last confirmed it unchanged (if after the record was saved).
    func original(named name: String) -> (record: Data, confirmedAt: Date?)? {
        connection.withLock { connection in
            guard let statement = try? connection.statement(
                      slot: 0, "SELECT record, confirmed_at_ms FROM originals WHERE name = ?1").bind(.text(name)),
                  (try? statement.step()) == true, let record = statement.blob(0) else { return nil }
            let confirmed = statement.optionalInt(1).map { Date(timeIntervalSince1970: Double($0) / 1000) }
            return (record, confirmed)
        }
    }

    /// Saves (or replaces) an original's record.
    func saveOriginal(_ record: Data, named name: String) throws {
        try connection.withLock { connection in
            try connection.statement(
                slot: 1, "INSERT OR REPLACE INTO originals (name, record, confirmed_at_ms) VALUES (?1, ?2, NULL)")
                .bind(.text(name), .blob(record)).run()
        }
    }

    /// Notes that the server confirmed a saved record's original at `date`, without rewriting the
    /// record. Committed with the next few hundred, or by ``flush()``.
    func confirmOriginal(named name: String, at date: Date) throws {
        let batch = pendingConfirmations.withLock { pending -> [(name: String, milliseconds: Int64)]? in
            pending.append((name, Int64((date.timeIntervalSince1970 * 1000).rounded())))
            guard pending.count >= Self.confirmationBatch else { return nil }
            defer { pending.removeAll(keepingCapacity: true) }
            return pending
        }
        if let batch { try commit(batch) }
    }

    /// Commits the confirmations still in memory. The pipeline calls it once its sources are done.
    func flush() throws {
        let batch = pendingConfirmations.withLock { pending in
            defer { pending.removeAll() }
            return pending
        }
        if !batch.isEmpty { try commit(batch) }
    }

    private func commit(_ confirmations: [(name: String, milliseconds: Int64)]) throws {
        try connection.withLock { connection in
            try connection.transaction {
                for confirmation in confirmations {
                    try connection.statement(slot: 2, "UPDATE originals SET confirmed_at_ms = ?2 WHERE name = ?1")
                        .bind(.text(confirmation.name), .integer(confirmation.milliseconds)).run()
                }
            }
        }
    }

    /// Forgets an original's record (its file no longer matches it).
    func removeOriginal(named name: String) {
        connection.withLock { connection in
            try? connection.statement(slot: 3, "DELETE FROM originals WHERE name = ?1").bind(.text(name)).run()
        }
    }

    // MARK: Renders

    /// The memo entry saved under `key`, as saved.
    func render(key: String) -> Data? {
        connection.withLock { connection in
            guard let statement = try? connection.statement(slot: 4, "SELECT entry FROM renders WHERE key = ?1")
                      .bind(.text(key)),
                  (try? statement.step()) == true else { return nil }
            return statement.blob(0)
        }
    }

    /// Saves (or replaces) the memo entry under `key`.
    func saveRender(_ entry: Data, key: String) throws {
        try connection.withLock { connection in
            try connection.statement(slot: 5, "INSERT OR REPLACE INTO renders (key, entry) VALUES (?1, ?2)")
                .bind(.text(key), .blob(entry)).run()
        }
    }

    /// Saves many records in one transaction (moving an earlier version's files in).
    func saveAll(originals: [(name: String, record: Data, confirmedAt: Date?)], renders: [(key: String, entry: Data)]) throws {
        try connection.withLock { connection in
            try connection.transaction {
                for original in originals {
                    try connection.statement(
                        slot: 6, "INSERT OR REPLACE INTO originals (name, record, confirmed_at_ms) VALUES (?1, ?2, ?3)")
                        .bind(.text(original.name), .blob(original.record),
                              .int(original.confirmedAt.map { Int(($0.timeIntervalSince1970 * 1000).rounded()) })).run()
                }
                for render in renders {
                    try connection.statement(slot: 5, "INSERT OR REPLACE INTO renders (key, entry) VALUES (?1, ?2)")
                        .bind(.text(render.key), .blob(render.entry)).run()
                }
            }
        }
    }
}
