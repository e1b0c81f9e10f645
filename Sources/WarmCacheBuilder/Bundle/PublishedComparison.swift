import Foundation
import WarmCache

/// Comparing the staged rows with the index in place, with that index attached to the staging
/// connection as `published`: whether it holds the same rows, and which of its sources the
/// staged rows lack.
///
/// A no-op re-warm asks this instead of writing a second index to compare bytes: the check runs
/// inside SQLite, one look-up by key per staged row, and costs a fraction of writing the index.
enum PublishedComparison {
    /// Whether the index at `path` has the `meta` rows `meta` and the same rows as the staging
    /// database in every table (a source's rows matched by its identifier, as source ids are only
    /// a numbering). Anything that cannot be compared (an unreadable or foreign file, another
    /// schema) counts as a difference.
    static func matches(indexAt path: String, meta: [(String, String)], staging: StagingDatabase) -> Bool {
        do {
            try staging.attach(path, as: "published")
            defer {
                staging.connection.finalizeStatements()
                try? staging.connection.execute("DETACH DATABASE published")
            }
            // One read transaction for all the questions (no locks taken and dropped between them).
            try staging.connection.execute("BEGIN")
            defer { try? staging.connection.execute("COMMIT") }
            return try publishedRowsMatch(meta: meta, staging: staging)
        } catch {
            return false
        }
    }

    /// The comparison of ``matches(indexAt:meta:staging:)``, with the published index attached.
    /// Every column of ``IndexSchema`` is compared, so a column added to a table is compared
    /// without being listed here.
    private static func publishedRowsMatch(meta: [(String, String)], staging: StagingDatabase) throws -> Bool {
        typealias M = IndexSchema.Meta
        typealias S = IndexSchema.Sources
        typealias V = IndexSchema.Variants
        typealias P = IndexSchema.VariantPresets
        typealias PH = IndexSchema.Placeholders
        let connection = staging.connection
        let publishedMeta = try connection.statement(
            "SELECT \(M.key), \(M.value) FROM published.\(M.table) ORDER BY \(M.key)")
        var found: [(String, String)] = []
        while try publishedMeta.step() {
            found.append((publishedMeta.text(M.key), publishedMeta.text(M.value)))
        }
        guard found.elementsEqual(meta, by: { $0 == $1 }) else { return false }

        /// The number a query of one `count` gives (-1 for none).
        func count(_ sql: String) throws -> Int {
            let statement = try connection.statement(sql)
            return try statement.step() ? statement.int("count") : -1
        }
        /// `p.x IS s.x AND …` for every column of `table` but `excluded`.
        func same(_ table: IndexTable, _ alias: String, _ publishedAlias: String, except excluded: Set<IndexColumn>) -> String {
            table.columns.filter { !excluded.contains($0) }.map { "\(publishedAlias).\($0) IS \(alias).\($0)" }
                .joined(separator: " AND ")
        }
        // Equal counts, and every staged row with an equal published row under the same key: the same rows.
        for table in [S.table, V.table, P.table, PH.table] {
            guard try count("SELECT count(*) AS count FROM main.\(table)")
                    == count("SELECT count(*) AS count FROM published.\(table)")
            else { return false }
        }
        let matchedSources = try count("""
            SELECT count(*) AS count FROM main.\(S.table) s JOIN published.\(S.table) p ON p.\(S.source) = s.\(S.source)
            WHERE \(same(S.table, "s", "p", except: [S.id]))
            """)
        guard matchedSources == (try staging.count(S.table.name)) else { return false }
        let matchedVariants = try count("""
            SELECT count(*) AS count FROM main.\(V.table) v JOIN main.\(S.table) s ON s.\(S.id) = v.\(V.sourceID)
                JOIN published.\(V.table) p ON p.\(V.cacheKey) = v.\(V.cacheKey)
                JOIN published.\(S.table) ps ON ps.\(S.id) = p.\(V.sourceID) AND ps.\(S.source) = s.\(S.source)
            WHERE \(same(V.table, "v", "p", except: [V.sourceID]))
            """)
        guard matchedVariants == (try staging.count(V.table.name)) else { return false }
        let matchedPresets = try count("""
            SELECT count(*) AS count FROM main.\(P.table) v
                JOIN published.\(P.table) p ON p.\(P.preset) = v.\(P.preset) AND p.\(P.cacheKey) = v.\(P.cacheKey)
            """)
        guard matchedPresets == (try staging.count(P.table.name)) else { return false }
        let matchedPlaceholders = try count("""
            SELECT count(*) AS count FROM main.\(PH.table) x JOIN main.\(S.table) s ON s.\(S.id) = x.\(PH.sourceID)
                JOIN published.\(S.table) ps ON ps.\(S.source) = s.\(S.source)
                JOIN published.\(PH.table) p ON p.\(PH.sourceID) = ps.\(S.id)
            WHERE \(same(PH.table, "x", "p", except: [PH.sourceID]))
            """)
        return matchedPlaceholders == (try staging.count(PH.table.name))
    }

    /// The identifiers of the sources in the index at `path` that are not staged, sorted (none
    /// if that index cannot be read). One query inside SQLite: the staged sources' key finds each.
    static func sourcesMissing(fromIndexAt path: String, staging: StagingDatabase) -> [String] {
        do {
            try staging.attach(path, as: "published")
            defer {
                staging.connection.finalizeStatements()
                try? staging.connection.execute("DETACH DATABASE published")
            }
            typealias S = IndexSchema.Sources
            let statement = try staging.connection.statement("""
                SELECT \(S.source) FROM published.\(S.table)
                WHERE \(S.source) NOT IN (SELECT \(S.source) FROM main.\(S.table)) ORDER BY \(S.source)
                """)
            var missing: [String] = []
            while try statement.step() {
                missing.append(statement.text(S.source))
            }
            return missing
        } catch {
            return []
        }
    }
}
