import Foundation
import WarmCache

/// Staging the rows of another index (a part given to `warm-cache merge`): whether they agree
/// with the rows staged before, and copying in those that are new.
///
/// A source or key staged before must have the same row (presets aside, which are united);
/// otherwise nothing of that index is staged and the first conflict is returned. The rows go
/// set-wise from the attached file into the staging tables inside SQLite, so no row passes
/// through memory and a merge of any size runs at SQLite's own speed; publication is then the
/// same as for a warm's rows.
enum IndexMerge {
    /// A row of another index that contradicts a staged one.
    enum Conflict: Equatable {
        /// The same source with another original (or format, size or placeholder).
        case source(identifier: String, stagedSHA256: String, incomingSHA256: String)
        /// The same key with another blob (or size, alpha or columns).
        case variant(key: String, stagedBlob: String, incomingBlob: String)
    }

    private typealias S = IndexSchema.Sources
    private typealias V = IndexSchema.Variants
    private typealias P = IndexSchema.VariantPresets
    private typealias PH = IndexSchema.Placeholders

    /// Stages the rows of the index at `path` that are not staged yet, or returns the first
    /// conflict and stages nothing. Staging goes on afterwards, in a new transaction.
    static func merge(indexAt path: String, into staging: StagingDatabase) throws -> Conflict? {
        let connection = staging.connection
        try connection.execute("COMMIT")
        try staging.attach(path, as: "part")
        defer {
            try? connection.execute("DETACH DATABASE part")
            try? connection.execute("BEGIN")
        }
        return try connection.transaction { () throws -> Conflict? in
            if let conflict = try firstConflict(connection) { return conflict }
            let orphan = try connection.statement("""
                SELECT pv.\(V.cacheKey) FROM part.\(V.table) pv
                WHERE NOT EXISTS (SELECT 1 FROM part.\(S.table) ps WHERE ps.\(S.id) = pv.\(V.sourceID)) LIMIT 1
                """)
            defer { try? orphan.reset() }
            if try orphan.step() {
                throw IndexBuilderError.inconsistent("variant \(orphan.text(V.cacheKey)) belongs to no listed source")
            }
            let last = try connection.statement("SELECT coalesce(max(\(S.id)), 0) AS last FROM main.\(S.table)")
            defer { try? last.reset() }
            let before = try last.step() ? last.int("last") : 0
            // New sources get new ids after the staged ones; the part's other rows take them, found
            // by identifier.
            try connection.execute("""
                INSERT INTO main.\(S.table) (\(S.table.columnList(excluding: [S.id])))
                    SELECT \(S.table.selectList(from: "ps", excluding: [S.id]))
                    FROM part.\(S.table) ps
                    WHERE NOT EXISTS (SELECT 1 FROM main.\(S.table) s WHERE s.\(S.source) = ps.\(S.source))
                    ORDER BY ps.\(S.id);
                INSERT INTO main.\(PH.table) (\(PH.table.columnList()))
                    SELECT \(PH.table.selectList(from: "pp", replacing: [PH.sourceID: "s.\(S.id)"]))
                    FROM part.\(PH.table) pp JOIN part.\(S.table) ps ON ps.\(S.id) = pp.\(PH.sourceID)
                        JOIN main.\(S.table) s ON s.\(S.source) = ps.\(S.source)
                    WHERE s.\(S.id) > \(before);
                INSERT INTO main.\(V.table) (\(V.table.columnList()))
                    SELECT \(V.table.selectList(from: "pv", replacing: [V.sourceID: "s.\(S.id)"]))
                    FROM part.\(V.table) pv JOIN part.\(S.table) ps ON ps.\(S.id) = pv.\(V.sourceID)
                        JOIN main.\(S.table) s ON s.\(S.source) = ps.\(S.source)
                    WHERE NOT EXISTS (SELECT 1 FROM main.\(V.table) v WHERE v.\(V.cacheKey) = pv.\(V.cacheKey));
                INSERT OR IGNORE INTO main.\(P.table) (\(P.table.columnList()))
                    SELECT \(P.table.selectList(from: "")) FROM part.\(P.table);
                """)
            return nil
        }
    }

    /// The first row of the attached part that contradicts a staged row with the same source or
    /// key: any column differs but the key and the source id (a numbering). A variant's
    /// `quality_score` is left out: it measures the blob, which is compared.
    private static func firstConflict(_ connection: SQLiteConnection) throws -> Conflict? {
        func differ(_ table: IndexTable, _ staged: String, _ incoming: String, except excluded: Set<IndexColumn>) -> String {
            table.columns.filter { !excluded.contains($0) }
                .map { "\(staged).\($0) IS NOT \(incoming).\($0)" }.joined(separator: " OR ")
        }
        let sources = try connection.statement("""
            SELECT ps.\(S.source), s.\(S.contentSHA256) AS staged_sha256, ps.\(S.contentSHA256) AS incoming_sha256
            FROM part.\(S.table) ps JOIN main.\(S.table) s ON s.\(S.source) = ps.\(S.source)
                LEFT JOIN part.\(PH.table) pp ON pp.\(PH.sourceID) = ps.\(S.id)
                LEFT JOIN main.\(PH.table) sp ON sp.\(PH.sourceID) = s.\(S.id)
            WHERE \(differ(S.table, "s", "ps", except: [S.id, S.source]))
                OR \(differ(PH.table, "sp", "pp", except: [PH.sourceID]))
            LIMIT 1
            """)
        defer { try? sources.reset() }
        if try sources.step() {
            return .source(identifier: sources.text(S.source), stagedSHA256: sources.text("staged_sha256"),
                           incomingSHA256: sources.text("incoming_sha256"))
        }
        let variants = try connection.statement("""
            SELECT pv.\(V.cacheKey), v.\(V.blobSHA256) AS staged_blob, pv.\(V.blobSHA256) AS incoming_blob
            FROM part.\(V.table) pv JOIN main.\(V.table) v ON v.\(V.cacheKey) = pv.\(V.cacheKey)
            WHERE \(differ(V.table, "v", "pv", except: [V.cacheKey, V.sourceID, V.qualityScore]))
            LIMIT 1
            """)
        defer { try? variants.reset() }
        if try variants.step() {
            return .variant(key: variants.text(V.cacheKey), stagedBlob: variants.text("staged_blob"),
                            incomingBlob: variants.text("incoming_blob"))
        }
        return nil
    }
}
