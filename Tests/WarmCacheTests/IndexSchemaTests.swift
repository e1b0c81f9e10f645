import Foundation
import Testing
@testable import WarmCache

@Suite("The index schema")
struct IndexSchemaTests {
    /// SQLite keeps each `CREATE` statement's text in the file (`sqlite_schema`), so the text is part
    /// of every index's bytes: one space more and the same rows no longer give the same file as
    /// before. This is the text every format 1.2 index has been written with, character for character.
    @Test("The schema's text is the one every index was written with")
    func schemaText() {
        let expected = [
            """
            CREATE TABLE meta (
                key   TEXT PRIMARY KEY NOT NULL,
                value TEXT NOT NULL
            ) WITHOUT ROWID
            """,
            """
            CREATE TABLE sources (
                id             INTEGER PRIMARY KEY,
                source         TEXT NOT NULL UNIQUE,
                content_sha256 TEXT NOT NULL,
                format         TEXT NOT NULL,
                pixel_width    INTEGER NOT NULL,
                pixel_height   INTEGER NOT NULL,
                byte_count     INTEGER NOT NULL
            )
            """,
            """
            CREATE TABLE variants (
                cache_key    TEXT PRIMARY KEY NOT NULL,
                source_id    INTEGER NOT NULL REFERENCES sources(id),
                width_pt     INTEGER,
                height_pt    INTEGER,
                scale        INTEGER NOT NULL,
                fit          TEXT NOT NULL,
                gravity      TEXT,
                background   TEXT,
                upscale      INTEGER NOT NULL,
                format       TEXT NOT NULL,
                quality      INTEGER,
                options      TEXT NOT NULL,
                processors   TEXT NOT NULL,
                pixel_width  INTEGER NOT NULL,
                pixel_height INTEGER NOT NULL,
                byte_count   INTEGER NOT NULL,
                blob_sha256  TEXT NOT NULL,
                has_alpha    INTEGER NOT NULL,
                quality_target  INTEGER,
                encoder_quality INTEGER,
                quality_score   REAL
            ) WITHOUT ROWID
            """,
            "CREATE INDEX variants_by_source ON variants (source_id, format)",
            """
            CREATE TABLE variant_presets (
                preset    TEXT NOT NULL,
                cache_key TEXT NOT NULL REFERENCES variants(cache_key),
                PRIMARY KEY (preset, cache_key)
            ) WITHOUT ROWID
            """,
            """
            CREATE TABLE placeholders (
                source_id     INTEGER PRIMARY KEY REFERENCES sources(id),
                thumbhash     BLOB,
                blurhash      TEXT,
                average_color TEXT
            )
            """,
        ]
        #expect(BundleFormat.schema.count == expected.count)
        for (statement, expected) in zip(BundleFormat.schema, expected) {
            #expect(statement == expected)
        }
    }

    /// Each table's columns as SQLite reads them from the schema are the ones ``IndexSchema``
    /// declares, in order: the names queries use are the names the file has.
    @Test("SQLite finds the declared columns in the schema")
    func declaredColumns() throws {
        let connection = try SQLiteConnection(path: ":memory:", readOnly: false)
        for statement in BundleFormat.schema { try connection.execute(statement) }
        for table in IndexSchema.tables {
            let info = try connection.statement("SELECT name FROM pragma_table_info(?) ORDER BY cid")
            try info.bind(.text(table.name))
            var names: [String] = []
            while try info.step() { names.append(info.text("name")) }
            #expect(names == table.columns.map(\.name), "\(table.name)")
        }
        // Format 1.2's columns are not required of an index: one of format 1.0 or 1.1 lacks them.
        let required = Set(IndexSchema.Variants.table.requiredColumns.map(\.name))
        #expect(required.isDisjoint(with: ["quality_target", "encoder_quality", "quality_score"]))
        #expect(required.count == IndexSchema.Variants.table.columns.count - 3)
    }
}
