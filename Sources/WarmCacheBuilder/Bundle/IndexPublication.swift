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
                try connection.statement("INSERT INTO meta (key, value) VALUES (?, ?)")
                    .bind(.text(key), .text(value)).run()
            }
            try connection.execute("""
                INSERT INTO sources (id, source, content_sha256, format, pixel_width, pixel_height, byte_count)
                    SELECT row_number() OVER (ORDER BY source), source, content_sha256, format, pixel_width,
                        pixel_height, byte_count
                    FROM staging.sources ORDER BY source;
                INSERT INTO placeholders (source_id, thumbhash, blurhash, average_color)
                    SELECT s.id, p.thumbhash, p.blurhash, p.average_color
                    FROM staging.placeholders p JOIN staging.sources staged ON staged.id = p.source_id
                        JOIN sources s ON s.source = staged.source
                    ORDER BY s.id;
                INSERT INTO variants (cache_key, source_id, width_pt, height_pt, scale, fit, gravity, background,
                        upscale, format, quality, options, processors, pixel_width, pixel_height, byte_count,
                        blob_sha256, has_alpha, quality_target, encoder_quality, quality_score)
                    SELECT v.cache_key, s.id, v.width_pt, v.height_pt, v.scale, v.fit, v.gravity, v.background,
                        v.upscale, v.format, v.quality, v.options, v.processors, v.pixel_width, v.pixel_height,
                        v.byte_count, v.blob_sha256, v.has_alpha, v.quality_target, v.encoder_quality, v.quality_score
                    FROM staging.variants v JOIN staging.sources staged ON staged.id = v.source_id
                        JOIN sources s ON s.source = staged.source
                    ORDER BY v.cache_key;
                INSERT INTO variant_presets (preset, cache_key)
                    SELECT preset, cache_key FROM staging.variant_presets ORDER BY cache_key, preset;
                """)
        }
        connection.finalizeStatements()
        try connection.execute("DETACH DATABASE staging")
        try connection.execute("PRAGMA optimize")
    }
}
