import Foundation
import Testing
@testable import WarmCache

@Suite("Reading SQLite columns by name")
struct SQLiteColumnTests {
    static func connection() throws -> SQLiteConnection {
        let connection = try SQLiteConnection(path: ":memory:", readOnly: false)
        try connection.execute("""
            CREATE TABLE sizes (name TEXT NOT NULL, pixel_width INTEGER, pixel_height INTEGER, ratio REAL, bytes BLOB);
            INSERT INTO sizes VALUES ('wide', 640, 480, 1.5, x'0102'), ('unknown', NULL, 10, NULL, NULL);
            """)
        return connection
    }

    @Test("A table's column keeps its name; an expression is named with AS")
    func names() throws {
        let connection = try Self.connection()
        let rows = try connection.statement("""
            SELECT s.pixel_height, s.pixel_width, s.name, s.ratio, s.bytes, s.pixel_width * 2 AS doubled
            FROM sizes s ORDER BY s.name DESC
            """)
        #expect(try rows.step())
        #expect(rows.text("name") == "wide")
        #expect(rows.int("pixel_width") == 640)
        #expect(rows.int("pixel_height") == 480)
        #expect(rows.int("doubled") == 1280)
        #expect(rows.optionalDouble("ratio") == 1.5)
        #expect(rows.blob("bytes") == Data([1, 2]))
        #expect(try rows.step())
        #expect(rows.optionalInt("pixel_width") == nil)
        #expect(rows.storage("pixel_width") == .null)
        #expect(rows.strictInt("pixel_height") == 10)
        #expect(rows.blob("bytes") == nil)
        #expect(try !rows.step())
    }

    /// SQLite matches names ignoring ASCII case, and reports a table's column as declared: a
    /// column declared `pixeL_height` (one flipped bit in a damaged index) is still found.
    @Test("A column is found by name whatever the case it was declared in")
    func caseOfTheDeclaration() throws {
        let connection = try SQLiteConnection(path: ":memory:", readOnly: false)
        try connection.execute("CREATE TABLE sizes (pixeL_height INTEGER); INSERT INTO sizes VALUES (480);")
        let rows = try connection.statement("SELECT s.pixel_height FROM sizes s")
        #expect(try rows.step())
        #expect(rows.int("pixel_height") == 480)
        #expect(rows.int("PIXEL_HEIGHT") == 480)
    }

    struct SizeColumns: SQLiteColumnSet {
        let name: SQLiteColumn
        let width: SQLiteColumn

        init(in statement: SQLiteStatement) {
            name = statement.column("name")
            width = statement.column("pixel_width")
        }
    }

    @Test("A column set is found once and reads every row, whatever the order of the columns")
    func columnSets() throws {
        let connection = try Self.connection()
        for sql in ["SELECT name, pixel_width FROM sizes WHERE name = ?", "SELECT pixel_width, name FROM sizes WHERE name = ?"] {
            for name in ["wide", "unknown", "wide"] {
                let rows = try connection.statement(sql).bind(.text(name))  // the same statement, reset
                let columns = rows.columns(SizeColumns.self)
                #expect(try rows.step())
                #expect(rows.text(columns.name) == name)
                #expect(rows.optionalInt(columns.width) == (name == "wide" ? 640 : nil))
            }
        }
    }

    @Test("A misspelt name stops the program, naming the statement's columns")
    func misspelt() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let connection = try SQLiteColumnTests.connection()
            let rows = try connection.statement("SELECT name, pixel_width FROM sizes")
            _ = try rows.step()
            _ = rows.int("pixel_widht")
        }
        let message = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
        #expect(message.contains("no column named 'pixel_widht'"))
        #expect(message.contains("its columns: name, pixel_width"))
    }

    @Test("A name the result has twice stops the program")
    func ambiguous() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let connection = try SQLiteColumnTests.connection()
            let rows = try connection.statement("SELECT a.name, b.name FROM sizes a JOIN sizes b")
            _ = try rows.step()
            _ = rows.text("name")
        }
        let message = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
        #expect(message.contains("two columns named 'name'"))
    }

    @Test("A column found in one statement cannot be read in another")
    func foreignColumn() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let connection = try SQLiteColumnTests.connection()
            let widths = try connection.statement("SELECT pixel_width FROM sizes")
            let width = widths.column("pixel_width")
            let names = try connection.statement("SELECT name FROM sizes")
            _ = try names.step()
            _ = names.text(width)
        }
        let message = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
        #expect(message.contains("a column found in another statement"))
    }
}
