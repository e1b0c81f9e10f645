import Foundation
import WarmCache

/// The cache directory's records in one SQLite file, `records.sqlite`: what the originals cache
/// knows about each original (``OriginalRecord``, keyed by the original's file name), each
/// render memo entry (``RenderMemo``, keyed by its entry key, a few per source), and the index each bundle was
/// last left with (``PublishedIndex``, keyed by the bundle's path). The values are the records' own
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
/// CI-cache restore, say) is replaced by an empty one, when it is opened or when SQLite first
/// finds a damaged page: its originals are downloaded and its sources rendered again.
///
/// Confirmations (a `304` for an original on record, one per source of a re-warm) are the only
/// writes that are not committed at once: they are kept in memory (about 100 bytes each) and
/// committed several thousand at a time, and by ``flush()`` at the end of a run. They go to
/// their own narrow table (name and time), not into the originals' rows: a commit writes every
/// page it touches to the log, and a confirmation may touch any page. Updating the originals'
/// rows in batches of 512, a re-warm of 8,000 sources wrote ~12,500 pages (50 MB) to the log;
/// in one batch still ~6,400. A confirmation lost in a crash only makes `--max-age` count from
/// the confirmation before. A confirmation older than its record's own check time is ignored, so
/// a new record needs no clean-up of an old one.
///
/// Thread-safe: one connection behind a lock (each call is a few microseconds).
final class CacheRecords: @unchecked Sendable {
    let path: String
    private let connection: Locked<SQLiteConnection>
    /// Confirmations not committed yet: record name and time in milliseconds.
    private let pendingConfirmations = Locked<[(name: String, milliseconds: Int64)]>([])
    private static let confirmationBatch = 8192
    /// How long a writer waits for another run's lock on the file.
    private static let busyTimeoutMilliseconds = 30_000

    static let fileName = "records.sqlite"

    // The tables, each column named once: the setup creates them and every statement below
    // reads and writes them by these names.

    /// An original's record (``OriginalRecord``), by the original's file name.
    private enum Originals {
        static let table = "originals", name = "name", record = "record"
    }
    /// A render memo entry (``RenderMemo``), by its entry key, with the source it renders and
    /// when it was saved (in milliseconds since 1970): a source keeps its most recent few.
    private enum Renders {
        static let table = "render_entries", key = "key", source = "source", savedAt = "saved_ms", entry = "entry"
        static let bySource = "render_entries_by_source"
    }
    /// The render memo of earlier versions: one entry per source, by its memo key (read until
    /// each entry has been moved into ``Renders`` by a re-warm that reused it).
    private enum LegacyRenders {
        static let table = "renders", key = "key", entry = "entry"
    }
    /// When a `304` last confirmed an original, in milliseconds since 1970, by its file name.
    private enum Confirmations {
        static let table = "confirmations", name = "name", milliseconds = "at_ms"
    }
    /// What the last warm left in a bundle (``PublishedIndex``), by the bundle's path.
    private enum PublishedIndexes {
        static let table = "published_indexes", bundle = "bundle", record = "record"
    }

    private static let setup = """
        PRAGMA journal_mode = WAL;
        PRAGMA synchronous = NORMAL;
        CREATE TABLE IF NOT EXISTS \(Originals.table) (
            \(Originals.name) TEXT PRIMARY KEY,
            \(Originals.record) BLOB NOT NULL
        ) WITHOUT ROWID;
        CREATE TABLE IF NOT EXISTS \(Renders.table) (
            \(Renders.key) TEXT PRIMARY KEY,
            \(Renders.source) TEXT NOT NULL,
            \(Renders.savedAt) INTEGER NOT NULL,
            \(Renders.entry) BLOB NOT NULL
        ) WITHOUT ROWID;
        CREATE INDEX IF NOT EXISTS \(Renders.bySource) ON \(Renders.table) (\(Renders.source), \(Renders.savedAt));
        CREATE TABLE IF NOT EXISTS \(LegacyRenders.table) (
            \(LegacyRenders.key) TEXT PRIMARY KEY,
            \(LegacyRenders.entry) BLOB NOT NULL
        ) WITHOUT ROWID;
        CREATE TABLE IF NOT EXISTS \(Confirmations.table) (
            \(Confirmations.name) TEXT PRIMARY KEY,
            \(Confirmations.milliseconds) INTEGER NOT NULL
        ) WITHOUT ROWID;
        CREATE TABLE IF NOT EXISTS \(PublishedIndexes.table) (
            \(PublishedIndexes.bundle) TEXT PRIMARY KEY,
            \(PublishedIndexes.record) TEXT NOT NULL
        ) WITHOUT ROWID;
        """

    /// Opens (or creates) the records of the cache directory `cacheDirectory`, creating the
    /// directory if needed. A cache directory laid out by an earlier version (a record file
    /// beside each original, a `renders/` folder) has no records here: its originals are
    /// downloaded and its sources rendered again, as in an empty one.
    init(cacheDirectory: URL) throws {
        try FileManager.default.createDirectory(at: cacheDirectory, withIntermediateDirectories: true)
        path = cacheDirectory.appendingPathComponent(Self.fileName).path
        let opened: SQLiteConnection
        do {
            opened = try Self.open(path)
        } catch let error as SQLiteError where error.isCorruption {
            opened = try Self.replace(path)
        }
        connection = Locked(opened)
    }

    private static func open(_ path: String) throws -> SQLiteConnection {
        let connection = try SQLiteConnection(path: path, readOnly: false)
        try connection.execute("PRAGMA busy_timeout = \(busyTimeoutMilliseconds)")
        // Records are read in no useful order (keys are hashes): with SQLite's default 2 MB of
        // cache a re-warm of 8,000 sources read 37,000 pages from the file, with 16 MB 12,500
        // (each page about once). A bound, whatever the number of sources.
        try connection.execute("PRAGMA cache_size = -16384")
        try connection.execute(setup)
        return connection
    }

    /// Removes the damaged database at `path` (and its log) and opens an empty one there.
    private static func replace(_ path: String) throws -> SQLiteConnection {
        for suffix in ["", "-wal", "-shm"] { unlink(path + suffix) }
        return try open(path)
    }

    /// Runs `body` on the connection, under its lock. A database whose damage SQLite only finds
    /// now (a torn copy whose first pages are intact) is replaced by an empty one, and `body`
    /// runs once more on that.
    private func withConnection<T>(_ body: (SQLiteConnection) throws -> T) throws -> T {
        try connection.withLock { connection in
            do {
                return try body(connection)
            } catch let error as SQLiteError where error.isCorruption {
                connection.close()
                connection = try Self.replace(path)
                return try body(connection)
            }
        }
    }

    // The statements, one place each (slots: prepared once per connection).
    private typealias O = Originals
    private typealias C = Confirmations
    private static let selectOriginal = (slot: 0, sql: """
        SELECT o.\(O.record), c.\(C.milliseconds) FROM \(O.table) o
        LEFT JOIN \(C.table) c ON c.\(C.name) = o.\(O.name) WHERE o.\(O.name) = ?1
        """)
    private static let selectOriginalOnly = (slot: 7, sql: "SELECT \(O.record) FROM \(O.table) WHERE \(O.name) = ?1")
    private static let upsertOriginal = (slot: 1, sql: "INSERT OR REPLACE INTO \(O.table) (\(O.name), \(O.record)) VALUES (?1, ?2)")
    private static let confirm = (slot: 2, sql: "INSERT OR REPLACE INTO \(C.table) (\(C.name), \(C.milliseconds)) VALUES (?1, ?2)")
    private static let deleteOriginal = (slot: 3, sql: "DELETE FROM \(O.table) WHERE \(O.name) = ?1")
    private static let deleteConfirmation = (slot: 6, sql: "DELETE FROM \(C.table) WHERE \(C.name) = ?1")
    private typealias R = Renders
    private static let selectRender = (slot: 4, sql: "SELECT \(R.entry) FROM \(R.table) WHERE \(R.key) = ?1")
    private static let upsertRender = (slot: 5, sql: """
        INSERT OR REPLACE INTO \(R.table) (\(R.key), \(R.source), \(R.savedAt), \(R.entry)) VALUES (?1, ?2, ?3, ?4)
        """)
    /// Drops a source's entries but its `?2` most recent (ties: by key, so the choice is stable).
    private static let pruneRenders = (slot: 8, sql: """
        DELETE FROM \(R.table) WHERE \(R.source) = ?1 AND \(R.key) NOT IN (
            SELECT \(R.key) FROM \(R.table) WHERE \(R.source) = ?1 ORDER BY \(R.savedAt) DESC, \(R.key) LIMIT ?2)
        """)
    private static let selectLegacyRender = (slot: 9, sql: """
        SELECT \(LegacyRenders.entry) FROM \(LegacyRenders.table) WHERE \(LegacyRenders.key) = ?1
        """)

    private static func milliseconds(_ date: Date) -> Int64 {
        Int64((date.timeIntervalSince1970 * 1000).rounded())
    }

    // MARK: Originals

    /// An original's record and when a `304` last confirmed it unchanged (if after the record was
    /// saved); `nil` when there is none or it cannot be read. Without `includingConfirmations`,
    /// the confirmations noted since the record was saved are not looked up (one look-up less per
    /// source of a re-warm: only `--max-age` needs them).
    func original(named name: String, includingConfirmations: Bool = true) -> (record: Data, confirmedAt: Date?)? {
        try? withConnection { connection in
            let query = includingConfirmations ? Self.selectOriginal : Self.selectOriginalOnly
            let statement = try connection.statement(slot: query.slot, query.sql).bind(.text(name))
            guard try statement.step(), let record = statement.blob(Originals.record) else { return nil }
            let milliseconds = includingConfirmations ? statement.optionalInt(Confirmations.milliseconds) ?? 0 : 0
            let confirmed = milliseconds > 0 ? Date(timeIntervalSince1970: Double(milliseconds) / 1000) : nil
            return (record, confirmed)
        }
    }

    /// Saves (or replaces) an original's record.
    func saveOriginal(_ record: Data, named name: String) throws {
        try withConnection { connection in
            try connection.statement(slot: Self.upsertOriginal.slot, Self.upsertOriginal.sql)
                .bind(.text(name), .blob(record)).run()
        }
    }

    /// Notes that the server confirmed a saved record's original at `date`, without rewriting the
    /// record. Committed with the next few hundred, or by ``flush()``.
    func confirmOriginal(named name: String, at date: Date) throws {
        let batch = pendingConfirmations.withLock { pending -> [(name: String, milliseconds: Int64)]? in
            pending.append((name, Self.milliseconds(date)))
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

    /// Copies the write-ahead log into the file and empties it. The pipeline calls it at the end
    /// of a run, beside writing the report: closing the records (which checkpoints whatever the log
    /// still holds) then costs the run nothing, and the next run opens no log to replay. A log
    /// that another run sharing the cache directory is reading is left to a later checkpoint,
    /// without waiting.
    func checkpointLog() {
        try? withConnection { connection in
            try connection.execute("PRAGMA busy_timeout = 0")
            defer { try? connection.execute("PRAGMA busy_timeout = \(Self.busyTimeoutMilliseconds)") }
            try connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        }
    }

    private func commit(_ confirmations: [(name: String, milliseconds: Int64)]) throws {
        try withConnection { connection in
            try connection.transaction {
                for confirmation in confirmations {
                    try connection.statement(slot: Self.confirm.slot, Self.confirm.sql)
                        .bind(.text(confirmation.name), .integer(confirmation.milliseconds)).run()
                }
            }
        }
    }

    /// Forgets an original's record (its file no longer matches it).
    func removeOriginal(named name: String) {
        try? withConnection { connection in
            try connection.statement(slot: Self.deleteOriginal.slot, Self.deleteOriginal.sql).bind(.text(name)).run()
            try connection.statement(slot: Self.deleteConfirmation.slot, Self.deleteConfirmation.sql).bind(.text(name)).run()
        }
    }

    // MARK: Published indexes

    /// What the last warm into the bundle at `bundlePath` left there (``PublishedIndex``), if it
    /// used this cache directory.
    func publishedIndex(ofBundleAt bundlePath: String) -> PublishedIndex? {
        try? withConnection { connection in
            typealias P = PublishedIndexes
            let statement = try connection.statement("SELECT \(P.record) FROM \(P.table) WHERE \(P.bundle) = ?1")
                .bind(.text(bundlePath))
            return try statement.step() ? PublishedIndex(text: statement.text(P.record)) : nil
        }
    }

    /// Records what a warm left in the bundle at `bundlePath`; `nil` forgets it.
    func savePublishedIndex(_ index: PublishedIndex?, ofBundleAt bundlePath: String) throws {
        try withConnection { connection in
            typealias P = PublishedIndexes
            if let index {
                try connection.statement("INSERT OR REPLACE INTO \(P.table) (\(P.bundle), \(P.record)) VALUES (?1, ?2)")
                    .bind(.text(bundlePath), .text(index.text)).run()
            } else {
                try connection.statement("DELETE FROM \(P.table) WHERE \(P.bundle) = ?1").bind(.text(bundlePath)).run()
            }
        }
    }

    // MARK: Renders

    /// The memo entry saved under `key`, as saved; `nil` when there is none or it cannot be read.
    func render(key: String) -> Data? {
        try? withConnection { connection in
            let statement = try connection.statement(slot: Self.selectRender.slot, Self.selectRender.sql)
                .bind(.text(key))
            return try statement.step() ? statement.blob(Renders.entry) : nil
        }
    }

    /// Saves (or replaces) the memo entry under `key`, an entry of `source`'s, and drops that
    /// source's older entries beyond the `keeping` most recently saved. One transaction: a
    /// commit is an append to the log, and this is one per source encoded.
    func saveRender(_ entry: Data, key: String, source: String, keeping: Int, at date: Date = Date()) throws {
        try withConnection { connection in
            try connection.transaction {
                try connection.statement(slot: Self.upsertRender.slot, Self.upsertRender.sql)
                    .bind(.text(key), .text(source), .integer(Self.milliseconds(date)), .blob(entry)).run()
                try connection.statement(slot: Self.pruneRenders.slot, Self.pruneRenders.sql)
                    .bind(.text(source), .integer(Int64(keeping))).run()
            }
        }
    }

    /// How many memo entries `source` has.
    func renderCount(source: String) -> Int {
        (try? withConnection { connection in
            let statement = try connection.statement(
                "SELECT count(*) AS count FROM \(Renders.table) WHERE \(Renders.source) = ?1").bind(.text(source))
            return try statement.step() ? statement.int("count") : 0
        }) ?? 0
    }

    /// An entry of the earlier one-per-source memo, by its memo key; `nil` when there is none.
    func legacyRender(key: String) -> Data? {
        try? withConnection { connection in
            let statement = try connection.statement(slot: Self.selectLegacyRender.slot, Self.selectLegacyRender.sql)
                .bind(.text(key))
            return try statement.step() ? statement.blob(LegacyRenders.entry) : nil
        }
    }

    /// Forgets an entry of the earlier memo (it was moved, or it is no longer right).
    func removeLegacyRender(key: String) {
        try? withConnection { connection in
            try connection.statement("DELETE FROM \(LegacyRenders.table) WHERE \(LegacyRenders.key) = ?1")
                .bind(.text(key)).run()
        }
    }
}
