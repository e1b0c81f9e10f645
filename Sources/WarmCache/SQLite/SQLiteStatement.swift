import CSQLite
import Foundation

/// A prepared statement: bind parameters (1-based), step through rows, read columns (0-based).
package final class SQLiteStatement {
    private let handle: OpaquePointer
    private unowned let connection: SQLiteConnection
    private let sql: String

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
                        sqlite3_bind_text(handle, index, $0, Int32(bytes.count), Self.transient)
                    }
                }
            case .blob(let data):
                code = data.withUnsafeBytes { buffer in
                    sqlite3_bind_blob(handle, index, buffer.baseAddress, Int32(buffer.count), Self.transient)
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

    package func isNull(_ column: Int32) -> Bool {
        sqlite3_column_type(handle, column) == SQLITE_NULL
    }

    /// The storage class of a column in the current row: what the file holds, whatever the schema says.
    package func storage(_ column: Int32) -> SQLiteStorage {
        switch sqlite3_column_type(handle, column) {
        case SQLITE_INTEGER: return .integer
        case SQLITE_FLOAT: return .real
        case SQLITE_TEXT: return .text
        case SQLITE_BLOB: return .blob
        default: return .null
        }
    }

    /// The integer in a column, or `nil` unless the row stores an INTEGER there.
    package func strictInt(_ column: Int32) -> Int? {
        sqlite3_column_type(handle, column) == SQLITE_INTEGER ? Int(sqlite3_column_int64(handle, column)) : nil
    }

    /// The UTF-8 bytes of a TEXT column, without copying; valid until the statement steps or resets.
    /// `nil` unless the row stores TEXT there.
    package func textBytes(_ column: Int32) -> UnsafeBufferPointer<UInt8>? {
        guard sqlite3_column_type(handle, column) == SQLITE_TEXT,
              let pointer = sqlite3_column_text(handle, column) else { return nil }
        return UnsafeBufferPointer(start: pointer, count: Int(sqlite3_column_bytes(handle, column)))
    }

    package func int(_ column: Int32) -> Int {
        Int(sqlite3_column_int64(handle, column))
    }

    package func optionalInt(_ column: Int32) -> Int? {
        isNull(column) ? nil : int(column)
    }

    package func optionalDouble(_ column: Int32) -> Double? {
        isNull(column) ? nil : sqlite3_column_double(handle, column)
    }

    package func text(_ column: Int32) -> String {
        guard let pointer = sqlite3_column_text(handle, column) else { return "" }
        return String(cString: pointer)
    }

    package func optionalText(_ column: Int32) -> String? {
        isNull(column) ? nil : text(column)
    }

    package func blob(_ column: Int32) -> Data? {
        guard !isNull(column) else { return nil }
        let count = Int(sqlite3_column_bytes(handle, column))
        guard count > 0, let pointer = sqlite3_column_blob(handle, column) else { return Data() }
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
