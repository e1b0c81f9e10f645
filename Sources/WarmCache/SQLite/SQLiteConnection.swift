import CSQLite
import Foundation

/// One SQLite connection with a cache of prepared statements.
///
/// Not thread-safe by itself: a connection is used by one thread at a time (the reader's
/// ``ConnectionPool`` guarantees it; the writer owns its connection). It is opened in
/// SQLite's multi-thread mode (`SQLITE_OPEN_NOMUTEX`), so it takes no locks of its own.
package final class SQLiteConnection {
    private var handle: OpaquePointer?
    private var statements: [String: SQLiteStatement] = [:]
    private var slots: [SQLiteStatement?] = []
    package let path: String

    /// Opens `path`. A read-only open uses an `immutable=1` URI: SQLite then never creates
    /// or looks for `-wal`, `-shm` or journal files, so the file can live in an app's read-only
    /// resources.
    package init(path: String, readOnly: Bool) throws {
        self.path = path
        let flags: Int32
        let filename: String
        if readOnly {
            flags = SQLITE_OPEN_READONLY | SQLITE_OPEN_URI | SQLITE_OPEN_NOMUTEX
            filename = SQLiteConnection.immutableURI(forPath: path)
        } else {
            flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX
            filename = path
        }
        var db: OpaquePointer?
        let code = sqlite3_open_v2(filename, &db, flags, nil)
        guard code == SQLITE_OK, let db else {
            let message = db.map { String(cString: sqlite3_errmsg($0)) } ?? "out of memory"
            sqlite3_close_v2(db)
            throw SQLiteError(code: code, message: message, context: "opening \(path)")
        }
        handle = db
        sqlite3_extended_result_codes(db, 1)
        if readOnly {
            // Read pages straight from a memory map of the file instead of copying each one in with
            // pread(2): what makes lookups on a large index take microseconds. The map costs address
            // space, and resident memory only for the pages lookups touch (clean, shared, reclaimable).
            sqlite3_exec(db, "PRAGMA mmap_size = \(SQLiteConnection.readerMapBytes)", nil, nil, nil)
        }
    }

    /// How much of an index a reader maps (larger indexes read the rest with pread(2)): 256 MiB,
    /// or 16 MiB where pointers have 32 bits (watchOS), whose address space four readers' maps
    /// would crowd.
    package static let readerMapBytes = MemoryLayout<Int>.size == 4 ? 16 << 20 : 256 << 20

    deinit {
        statements.removeAll()
        slots.removeAll()
        sqlite3_close_v2(handle)
    }

    /// `file:` URI for an immutable, read-only open, escaping the characters URIs reserve.
    static func immutableURI(forPath path: String) -> String {
        var escaped = ""
        for byte in path.utf8 {
            switch byte {
            case UInt8(ascii: "%"), UInt8(ascii: "?"), UInt8(ascii: "#"), 0...0x20, 0x7f...0xff:
                escaped += "%" + String(format2: byte)
            default:
                escaped.unicodeScalars.append(Unicode.Scalar(byte))
            }
        }
        return "file:\(escaped)?mode=ro&immutable=1"
    }

    /// Runs one or more statements that return no rows.
    package func execute(_ sql: String) throws {
        var error: UnsafeMutablePointer<CChar>?
        let code = sqlite3_exec(handle, sql, nil, nil, &error)
        if code != SQLITE_OK {
            let message = error.map { String(cString: $0) } ?? lastMessage
            sqlite3_free(error)
            throw SQLiteError(code: code, message: message, context: "executing `\(sql.prefix(60))`")
        }
    }

    /// A prepared statement for `sql` kept in `slot` (a small number the caller owns) for the life of
    /// the connection and reset before reuse: for hot paths, which then skip hashing the SQL text.
    package func statement(slot: Int, _ sql: String) throws -> SQLiteStatement {
        if slot < slots.count, let cached = slots[slot] {
            try cached.reset()
            return cached
        }
        let statement = try statement(sql)
        if slot >= slots.count { slots += Array(repeating: nil, count: slot + 1 - slots.count) }
        slots[slot] = statement
        return statement
    }

    /// A prepared statement for `sql`, cached for the life of the connection and reset before reuse.
    package func statement(_ sql: String) throws -> SQLiteStatement {
        if let cached = statements[sql] {
            try cached.reset()
            return cached
        }
        var raw: OpaquePointer?
        let code = sqlite3_prepare_v3(handle, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &raw, nil)
        guard code == SQLITE_OK, let raw else {
            throw SQLiteError(code: code, message: lastMessage, context: "preparing `\(sql.prefix(60))`")
        }
        let statement = SQLiteStatement(raw, connection: self, sql: sql)
        statements[sql] = statement
        return statement
    }

    /// Runs `body` inside a transaction, committing if it returns and rolling back if it throws.
    package func transaction<T>(_ body: () throws -> T) throws -> T {
        try execute("BEGIN IMMEDIATE")
        do {
            let value = try body()
            try execute("COMMIT")
            return value
        } catch {
            try? execute("ROLLBACK")
            throw error
        }
    }

    /// Drops every cached prepared statement (required before closing or `VACUUM INTO`).
    package func finalizeStatements() {
        statements.removeAll()
        slots.removeAll()
    }

    /// Closes the connection now rather than when it is released (before its files are removed,
    /// say). Nothing may use it afterwards.
    package func close() {
        finalizeStatements()
        sqlite3_close_v2(handle)
        handle = nil
    }

    /// The rowid of the row the last successful `INSERT` on this connection added.
    package var lastInsertRowID: Int64 {
        sqlite3_last_insert_rowid(handle)
    }

    /// The most recent error message of this connection.
    package var lastMessage: String {
        String(cString: sqlite3_errmsg(handle))
    }

    /// The raw handle, for the statement wrapper.
    var rawHandle: OpaquePointer? { handle }
}
