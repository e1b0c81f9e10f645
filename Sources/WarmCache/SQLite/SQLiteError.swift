import CSQLite

/// A failed SQLite call: the result code and SQLite's own message.
package struct SQLiteError: Error, CustomStringConvertible, Sendable {
    package let code: Int32
    package let message: String
    /// What was being done, e.g. "preparing `SELECT …`".
    package let context: String

    package init(code: Int32, message: String, context: String) {
        self.code = code
        self.message = message
        self.context = context
    }

    /// Whether a `UNIQUE`, `PRIMARY KEY` or other constraint refused the statement.
    package var isConstraint: Bool {
        code & 0xff == SQLITE_CONSTRAINT
    }

    /// Whether the file is not a database or its pages are damaged.
    package var isCorruption: Bool {
        let primary = code & 0xff
        return primary == SQLITE_NOTADB || primary == SQLITE_CORRUPT
    }

    /// SQLite's own words and what was being done; the result code is for programs, not people.
    package var description: String {
        "SQLite failed while \(context): \(message)"
    }
}
