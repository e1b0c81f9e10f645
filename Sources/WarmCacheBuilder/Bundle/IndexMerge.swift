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
                SELECT pv.cache_key FROM part.variants pv
                WHERE NOT EXISTS (SELECT 1 FROM part.sources ps WHERE ps.id = pv.source_id) LIMIT 1
                """)
            defer { try? orphan.reset() }
            if try orphan.step() {
                throw IndexBuilderError.inconsistent("variant \(orphan.text(0)) belongs to no listed source")
            }
            let last = try connection.statement("SELECT coalesce(max(id), 0) FROM main.sources")
            defer { try? last.reset() }
            let before = try last.step() ? last.int(0) : 0
            try connection.execute("""
                INSERT INTO main.sources (source, content_sha256, format, pixel_width, pixel_height, byte_count)
                    SELECT ps.source, ps.content_sha256, ps.format, ps.pixel_width, ps.pixel_height, ps.byte_count
                    FROM part.sources ps
                    WHERE NOT EXISTS (SELECT 1 FROM main.sources s WHERE s.source = ps.source)
                    ORDER BY ps.id;
                INSERT INTO main.placeholders (source_id, thumbhash, blurhash, average_color)
                    SELECT s.id, pp.thumbhash, pp.blurhash, pp.average_color
                    FROM part.placeholders pp JOIN part.sources ps ON ps.id = pp.source_id
                        JOIN main.sources s ON s.source = ps.source
                    WHERE s.id > \(before);
                INSERT INTO main.variants (cache_key, source_id, width_pt, height_pt, scale, fit, gravity, background,
                        upscale, format, quality, options, processors, pixel_width, pixel_height, byte_count,
                        blob_sha256, has_alpha, quality_target, encoder_quality, quality_score)
                    SELECT pv.cache_key, s.id, pv.width_pt, pv.height_pt, pv.scale, pv.fit, pv.gravity,
                        pv.background, pv.upscale, pv.format, pv.quality, pv.options, pv.processors,
                        pv.pixel_width, pv.pixel_height, pv.byte_count, pv.blob_sha256, pv.has_alpha,
                        pv.quality_target, pv.encoder_quality, pv.quality_score
                    FROM part.variants pv JOIN part.sources ps ON ps.id = pv.source_id
                        JOIN main.sources s ON s.source = ps.source
                    WHERE NOT EXISTS (SELECT 1 FROM main.variants v WHERE v.cache_key = pv.cache_key);
                INSERT OR IGNORE INTO main.variant_presets (preset, cache_key)
                    SELECT preset, cache_key FROM part.variant_presets;
                """)
            return nil
        }
    }

    /// The first row of the attached part that contradicts a staged row with the same source or key.
    private static func firstConflict(_ connection: SQLiteConnection) throws -> Conflict? {
        let sources = try connection.statement("""
            SELECT ps.source, s.content_sha256, ps.content_sha256
            FROM part.sources ps JOIN main.sources s ON s.source = ps.source
                LEFT JOIN part.placeholders pp ON pp.source_id = ps.id
                LEFT JOIN main.placeholders sp ON sp.source_id = s.id
            WHERE s.content_sha256 IS NOT ps.content_sha256 OR s.format IS NOT ps.format
                OR s.pixel_width IS NOT ps.pixel_width OR s.pixel_height IS NOT ps.pixel_height
                OR s.byte_count IS NOT ps.byte_count OR sp.thumbhash IS NOT pp.thumbhash
                OR sp.blurhash IS NOT pp.blurhash OR sp.average_color IS NOT pp.average_color
            LIMIT 1
            """)
        defer { try? sources.reset() }
        if try sources.step() {
            return .source(identifier: sources.text(0), stagedSHA256: sources.text(1), incomingSHA256: sources.text(2))
        }
        let variants = try connection.statement("""
            SELECT pv.cache_key, v.blob_sha256, pv.blob_sha256
            FROM part.variants pv JOIN main.variants v ON v.cache_key = pv.cache_key
            WHERE v.blob_sha256 IS NOT pv.blob_sha256 OR v.byte_count IS NOT pv.byte_count
                OR v.pixel_width IS NOT pv.pixel_width OR v.pixel_height IS NOT pv.pixel_height
                OR v.has_alpha IS NOT pv.has_alpha OR v.width_pt IS NOT pv.width_pt
                OR v.height_pt IS NOT pv.height_pt OR v.scale IS NOT pv.scale OR v.fit IS NOT pv.fit
                OR v.gravity IS NOT pv.gravity OR v.background IS NOT pv.background
                OR v.upscale IS NOT pv.upscale OR v.format IS NOT pv.format OR v.quality IS NOT pv.quality
                OR v.options IS NOT pv.options OR v.processors IS NOT pv.processors
                OR v.quality_target IS NOT pv.quality_target OR v.encoder_quality IS NOT pv.encoder_quality
            LIMIT 1
            """)
        defer { try? variants.reset() }
        if try variants.step() {
            return .variant(key: variants.text(0), stagedBlob: variants.text(1), incomingBlob: variants.text(2))
        }
        return nil
    }
}
