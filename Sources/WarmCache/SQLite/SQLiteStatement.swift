import CSQLite
import Foundation

/// A prepared statement: bind parameters (1-based), step through rows, read columns by name.
///
/// A row's columns are read by the names the SQL gives them. An expression is named with `AS`
/// (`count(*) AS files`); a table's column selected as it is reads as its own name (`v.cache_key`
/// as `"cache_key"`), as SQLite has always named it (its documentation promises only `AS` names:
/// should that ever change, a read stops, it never takes another column). The statement finds
/// its names once, at the first read, in a map from name to position built from
/// `sqlite3_column_count` and `sqlite3_column_name`; names and positions are fixed by the SQL, so
/// the map holds for every row and every reuse of the statement.
///
/// A read by name (`row.int("pixel_width")`) looks its name up in that map. A loop over many
/// rows finds its columns once instead: as a ``SQLiteColumn`` (``column(_:)``), or as a
/// ``SQLiteColumnSet`` (``columns(_:)``), which the statement keeps, so a query run again and
/// again does not look its names up again.
///
/// A name the result does not have, or has twice, stops the program with a message that names
/// the column, the statement and the columns it has. It is a mistake in the SQL beside the read,
/// which the first test that runs the query finds; reading some other column instead could never
/// be right.
package final class SQLiteStatement {
    private let handle: OpaquePointer
    private unowned let connection: SQLiteConnection
    private let sql: String
    /// The column sets found for this statement (``columns(_:)``), by type.
    private var columnSets: [ObjectIdentifier: any SQLiteColumnSet] = [:]

    /// `SQLITE_TRANSIENT`: SQLite copies bound text and blobs. The macro does not import into Swift.
    private static let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

    init(_ handle: OpaquePointer, connection: SQLiteConnection, sql: String) {
        self.handle = handle
        self.connection = connection
        self.sql = sql
    }

    deinit {
        sqlite3_finalize(handle)
    }

    package func reset() throws {
        sqlite3_reset(handle)
        sqlite3_clear_bindings(handle)
    }

    @discardableResult
    package func bind(_ values: SQLiteValue...) throws -> SQLiteStatement {
        try bind(values)
    }

    @discardableResult
    package func bind(_ values: [SQLiteValue]) throws -> SQLiteStatement {
        for (offset, value) in values.enumerated() {
            let index = Int32(offset + 1)
            let code: Int32
            switch value {
            case .null:
                code = sqlite3_bind_null(handle, index)
            case .integer(let number):
                code = sqlite3_bind_int64(handle, index, number)
            case .real(let number):
                code = sqlite3_bind_double(handle, index, number)
            case .text(var text):
                // From the string's own UTF-8 storage with its length: no C string copied out first.
                code = text.withUTF8 { bytes in
                    guard let start = bytes.baseAddress, !bytes.isEmpty else {
                        return sqlite3_bind_text(handle, index, "", 0, Self.transient)  // '' (a nil pointer binds NULL)
                    }
                    return start.withMemoryRebound(to: CChar.self, capacity: bytes.count) {
                        sqlite3_bind_text64(handle, index, $0, sqlite3_uint64(bytes.count), Self.transient,
                                            UInt8(SQLITE_UTF8))
                    }
                }
            case .blob(let data):
                code = data.withUnsafeBytes { buffer in
                    sqlite3_bind_blob64(handle, index, buffer.baseAddress, sqlite3_uint64(buffer.count), Self.transient)
                }
            }
            guard code == SQLITE_OK else { throw error(code, "binding parameter \(index)") }
        }
        return self
    }

    /// Advances to the next row; `false` when the statement is done.
    package func step() throws -> Bool {
        let code = sqlite3_step(handle)
        switch code {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        default: throw error(code, "running")
        }
    }

    /// Runs a statement that returns no rows.
    package func run() throws {
        while try step() {}
    }

    // MARK: Columns

    /// Where each of the result's column names is, found at the first read by name: the name of
    /// a column the result has twice maps to ``ambiguous``. Names are keyed as SQLite matches
    /// them, ignoring ASCII case: a table declared with `Pixel_Height` (by hand, or by one flipped
    /// bit in a damaged file) answers `SELECT pixel_height` under its declared spelling.
    private lazy var positions: [String: Int32] = {
        var positions: [String: Int32] = [:]
        for position in 0..<sqlite3_column_count(handle) {
            let name = Self.key(columnName(at: position))
            positions[name] = positions[name] == nil ? position : Self.ambiguous
        }
        return positions
    }()

    /// A column name as SQLite compares it: ASCII letters in lower case.
    private static func key(_ name: String) -> String {
        String(decoding: name.utf8.map { (65...90).contains($0) ? $0 + 32 : $0 }, as: UTF8.self)
    }

    private static let ambiguous: Int32 = -1

    private func columnName(at position: Int32) -> String {
        sqlite3_column_name(handle, position).map { String(cString: $0) } ?? ""
    }

    /// The result's column `name` names (a `String` or a table's declared column), to read row
    /// after row without looking the name up again. Stops the program when the result has no
    /// column of that name, or two.
    package func column(_ name: some SQLiteColumnReference) -> SQLiteColumn {
        SQLiteColumn(position: name.position(in: self), statement: ObjectIdentifier(self))
    }

    /// The columns `Columns` reads, found by name the first time this statement is asked for them
    /// and kept with it: what a query that runs many times reads its rows with.
    package func columns<Columns: SQLiteColumnSet>(_ type: Columns.Type) -> Columns {
        if let found = columnSets[ObjectIdentifier(type)] as? Columns { return found }
        let found = Columns(in: self)
        columnSets[ObjectIdentifier(type)] = found
        return found
    }

    /// The position of the column named `name`; stops the program if there is not exactly one.
    func position(of name: String) -> Int32 {
        switch positions[Self.key(name)] {
        case let position? where position != Self.ambiguous:
            return position
        case let found:
            let names = (0..<sqlite3_column_count(handle)).map(columnName(at:))
            preconditionFailure("""
                \(found == nil ? "no column named" : "two columns named") '\(name)' in the result of \
                `\(sql)` (its columns: \(names.joined(separator: ", ")))\(found == nil ? "" : "; name each with AS")
                """)
        }
    }

    /// Where `column` is in this statement's result; stops the program for a column found in
    /// another statement.
    func position(of column: SQLiteColumn) -> Int32 {
        precondition(column.statement == ObjectIdentifier(self),
                     "a column found in another statement read in the result of `\(sql)`")
        return column.position
    }

    // MARK: Reading the current row

    package func isNull(_ column: some SQLiteColumnReference) -> Bool {
        isNull(at: column.position(in: self))
    }

    private func isNull(at position: Int32) -> Bool {
        sqlite3_column_type(handle, position) == SQLITE_NULL
    }

    /// The storage class of a column in the current row: what the file holds, whatever the schema says.
    package func storage(_ column: some SQLiteColumnReference) -> SQLiteStorage {
        switch sqlite3_column_type(handle, column.position(in: self)) {
        case SQLITE_INTEGER: return .integer
        case SQLITE_FLOAT: return .real
        case SQLITE_TEXT: return .text
        case SQLITE_BLOB: return .blob
        default: return .null
        }
    }

    /// The integer in a column, or `nil` unless the row stores an INTEGER there.
    package func strictInt(_ column: some SQLiteColumnReference) -> Int? {
        let position = column.position(in: self)
        // `nil` too for a value a 32-bit `Int` (watchOS) cannot hold: an untrusted index's row is
        // then invalid, never a trap.
        return sqlite3_column_type(handle, position) == SQLITE_INTEGER
            ? Int(exactly: sqlite3_column_int64(handle, position)) : nil
    }

    /// The UTF-8 bytes of a TEXT column, without copying; valid until the statement steps or resets.
    /// `nil` unless the row stores TEXT there.
    package func textBytes(_ column: some SQLiteColumnReference) -> UnsafeBufferPointer<UInt8>? {
        let position = column.position(in: self)
        guard sqlite3_column_type(handle, position) == SQLITE_TEXT,
              let pointer = sqlite3_column_text(handle, position) else { return nil }
        return UnsafeBufferPointer(start: pointer, count: Int(sqlite3_column_bytes(handle, position)))
    }

    /// The column as an integer, as SQLite converts it (0 for NULL), clamped to what `Int` holds
    /// (32 bits on watchOS).
    package func int(_ column: some SQLiteColumnReference) -> Int {
        Int(clamping: sqlite3_column_int64(handle, column.position(in: self)))
    }

    /// The column as a 64-bit integer, as SQLite converts it (0 for NULL): byte totals and
    /// versions, which pass 2^31 where `Int` has 32 bits.
    package func int64(_ column: some SQLiteColumnReference) -> Int64 {
        sqlite3_column_int64(handle, column.position(in: self))
    }

    package func optionalInt(_ column: some SQLiteColumnReference) -> Int? {
        let position = column.position(in: self)
        return isNull(at: position) ? nil : Int(clamping: sqlite3_column_int64(handle, position))
    }

    package func optionalDouble(_ column: some SQLiteColumnReference) -> Double? {
        let position = column.position(in: self)
        return isNull(at: position) ? nil : sqlite3_column_double(handle, position)
    }

    /// The column as text, as SQLite converts it ("" for NULL).
    package func text(_ column: some SQLiteColumnReference) -> String {
        guard let pointer = sqlite3_column_text(handle, column.position(in: self)) else { return "" }
        return String(cString: pointer)
    }

    package func optionalText(_ column: some SQLiteColumnReference) -> String? {
        let position = column.position(in: self)
        guard !isNull(at: position) else { return nil }
        return sqlite3_column_text(handle, position).map { String(cString: $0) } ?? ""
    }

    package func blob(_ column: some SQLiteColumnReference) -> Data? {
        let position = column.position(in: self)
        guard !isNull(at: position) else { return nil }
        let count = Int(sqlite3_column_bytes(handle, position))
        guard count > 0, let pointer = sqlite3_column_blob(handle, position) else { return Data() }
        return Data(bytes: pointer, count: count)
    }

    private func error(_ code: Int32, _ action: String) -> SQLiteError {
        SQLiteError(code: code, message: connection.lastMessage, context: "\(action) `\(sql.prefix(60))`")
    }
}

/// SQLite's storage classes: the type a value in a row actually has.
package enum SQLiteStorage: String, Sendable {
    case integer = "INTEGER", real = "REAL", text = "TEXT", blob = "BLOB", null = "NULL"
}

/// A value bound to a statement parameter.
package enum SQLiteValue: Sendable {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)
    case blob(Data)

    package static func int(_ value: Int?) -> SQLiteValue {
        value.map { .integer(Int64($0)) } ?? .null
    }

    package static func string(_ value: String?) -> SQLiteValue {
        value.map { .text($0) } ?? .null
    }
}

/// One column of a statement's result, found by name (``SQLiteStatement/column(_:)``): reading
/// it costs no look-up. It belongs to the statement that found it; reading it in another stops
/// the program.
package struct SQLiteColumn: Sendable, Hashable {
    fileprivate let position: Int32
    fileprivate let statement: ObjectIdentifier
}

/// What a read names a column with: its name (a `String`, looked up in the statement's map of
/// names at each read), a ``SQLiteColumn`` found beforehand, or a table's declared column.
package protocol SQLiteColumnReference {
    /// The column's position in `statement`'s result; stops the program when there is none.
    func position(in statement: SQLiteStatement) -> Int32
}

extension String: SQLiteColumnReference {
    package func position(in statement: SQLiteStatement) -> Int32 {
        statement.position(of: self)
    }
}

extension SQLiteColumn: SQLiteColumnReference {
    package func position(in statement: SQLiteStatement) -> Int32 {
        statement.position(of: self)
    }
}

/// The columns one kind of read needs, each a ``SQLiteColumn`` found by name in `init(in:)`:
/// ``SQLiteStatement/columns(_:)`` finds them once per statement and keeps them with it.
package protocol SQLiteColumnSet {
    init(in statement: SQLiteStatement)
}
