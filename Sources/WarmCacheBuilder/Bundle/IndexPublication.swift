import Foundation
import WarmCache

/// Writing the index file from the staged rows: the schema, `meta`, and every row in sorted
/// order, in one transaction.
///
/// Sources are written by identifier, with ids assigned in that order, variants by key and
/// presets by key and name, whatever order the rows were staged in; nothing depends on the
/// clock unless `meta` holds `created_at`. The same rows therefore give a byte-identical index
/// with the same SQLite library version. The file is written without a journal (it is new, and
/// only swapped in once complete and flushed), then `PRAGMA optimize` leaves SQLite's statistics
/// in it for readers' query plans.
enum IndexPublication {
    private typealias M = IndexSchema.Meta
    private typealias S = IndexSchema.Sources
    private typealias V = IndexSchema.Variants
    private typealias P = IndexSchema.VariantPresets
    private typealias PH = IndexSchema.Placeholders

    /// Writes the index of the rows staged at `stagingPath` into a new file at `path`, with the
    /// `meta` rows `meta`.
    static func write(stagingAt stagingPath: String, to path: String, meta: [(String, String)]) throws {
        let connection = try SQLiteConnection(path: path, readOnly: false)
        try connection.execute("""
            PRAGMA journal_mode = OFF;
            PRAGMA synchronous = OFF;
            PRAGMA page_size = 4096;
            PRAGMA application_id = \(BundleFormat.applicationID);
            """)
        try connection.execute("ATTACH DATABASE \(StagingDatabase.quoted(stagingPath)) AS staging")
        try connection.transaction {
            for statement in BundleFormat.schema {
                try connection.execute(statement)
            }
            for (key, value) in meta {
                try connection.statement("INSERT INTO \(M.table) (\(M.table.columnList())) VALUES (?, ?)")
                    .bind(.text(key), .text(value)).run()
            }
            // Staged ids are the order rows arrived in: each row takes the id of its source's new
            // row, found by identifier.
            try connection.execute("""
                INSERT INTO \(S.table) (\(S.table.columnList()))
                    SELECT \(S.table.selectList(from: "", replacing: [S.id: "row_number() OVER (ORDER BY \(S.source))"]))
                    FROM staging.\(S.table) ORDER BY \(S.source);
                INSERT INTO \(PH.table) (\(PH.table.columnList()))
                    SELECT \(PH.table.selectList(from: "p", replacing: [PH.sourceID: "s.\(S.id)"]))
                    FROM staging.\(PH.table) p JOIN staging.\(S.table) staged ON staged.\(S.id) = p.\(PH.sourceID)
                        JOIN \(S.table) s ON s.\(S.source) = staged.\(S.source)
                    ORDER BY s.\(S.id);
                INSERT INTO \(V.table) (\(V.table.columnList()))
                    SELECT \(V.table.selectList(from: "v", replacing: [V.sourceID: "s.\(S.id)"]))
                    FROM staging.\(V.table) v JOIN staging.\(S.table) staged ON staged.\(S.id) = v.\(V.sourceID)
                        JOIN \(S.table) s ON s.\(S.source) = staged.\(S.source)
                    ORDER BY v.\(V.cacheKey);
                INSERT INTO \(P.table) (\(P.table.columnList()))
                    SELECT \(P.table.selectList(from: "")) FROM staging.\(P.table)
                    ORDER BY \(P.cacheKey), \(P.preset);
                """)
        }
        connection.finalizeStatements()
        try connection.execute("DETACH DATABASE staging")
        try connection.execute("PRAGMA optimize")
    }
}
