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
    /// The columns compared are read from the schema itself, so a column added to
    /// ``BundleFormat/schema`` is compared without being listed here.
    private static func publishedRowsMatch(meta: [(String, String)], staging: StagingDatabase) throws -> Bool {
        let connection = staging.connection
        let publishedMeta = try connection.statement("SELECT key, value FROM published.meta ORDER BY key")
        var found: [(String, String)] = []
        while try publishedMeta.step() {
            found.append((publishedMeta.text(0), publishedMeta.text(1)))
        }
        guard found.elementsEqual(meta, by: { $0 == $1 }) else { return false }

        func number(_ sql: String) throws -> Int {
            let statement = try connection.statement(sql)
            return try statement.step() ? statement.int(0) : -1
        }
        func columns(_ table: String, except excluded: Set<String>) throws -> [String] {
            let statement = try connection.statement("SELECT name FROM pragma_table_info('\(table)') ORDER BY cid")
            var names: [String] = []
            while try statement.step() {
                let name = statement.text(0)
                if !excluded.contains(name) { names.append(name) }
            }
            return names
        }
        func same(_ table: String, _ alias: String, _ publishedAlias: String, except excluded: Set<String>) throws -> String {
            try columns(table, except: excluded).map { "\(publishedAlias).\($0) IS \(alias).\($0)" }
                .joined(separator: " AND ")
        }
        // Equal counts, and every staged row with an equal published row under the same key: the same rows.
        for table in ["sources", "variants", "variant_presets", "placeholders"] {
            guard try number("SELECT count(*) FROM main.\(table)") == number("SELECT count(*) FROM published.\(table)")
            else { return false }
        }
        let matchedSources = try number("""
            SELECT count(*) FROM main.sources s JOIN published.sources p ON p.source = s.source
            WHERE \(try same("sources", "s", "p", except: ["id"]))
            """)
        guard matchedSources == (try staging.count("sources")) else { return false }
        let matchedVariants = try number("""
            SELECT count(*) FROM main.variants v JOIN main.sources s ON s.id = v.source_id
                JOIN published.variants p ON p.cache_key = v.cache_key
                JOIN published.sources ps ON ps.id = p.source_id AND ps.source = s.source
            WHERE \(try same("variants", "v", "p", except: ["source_id"]))
            """)
        guard matchedVariants == (try staging.count("variants")) else { return false }
        let matchedPresets = try number("""
            SELECT count(*) FROM main.variant_presets v
                JOIN published.variant_presets p ON p.preset = v.preset AND p.cache_key = v.cache_key
            """)
        guard matchedPresets == (try staging.count("variant_presets")) else { return false }
        let matchedPlaceholders = try number("""
            SELECT count(*) FROM main.placeholders x JOIN main.sources s ON s.id = x.source_id
                JOIN published.sources ps ON ps.source = s.source
                JOIN published.placeholders p ON p.source_id = ps.id
            WHERE \(try same("placeholders", "x", "p", except: ["source_id"]))
            """)
        return matchedPlaceholders == (try staging.count("placeholders"))
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
            let statement = try staging.connection.statement("""
                SELECT source FROM published.sources
                WHERE source NOT IN (SELECT source FROM main.sources) ORDER BY source
                """)
            var missing: [String] = []
            while try statement.step() {
                missing.append(statement.text(0))
            }
            return missing
        } catch {
            return []
        }
    }
}
