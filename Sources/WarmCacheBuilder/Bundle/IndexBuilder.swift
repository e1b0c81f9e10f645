import Foundation
import WarmCache

/// Builds `index.sqlite` while a run is in progress, without holding its rows in memory.
///
/// Rows arrive in any order (sources finish when they finish) and go straight into a staging
/// database on disk. ``publish(to:createdAt:)`` then writes the index itself into a fresh file
/// in one transaction, reading the staged rows back in sorted order (sources by identifier,
/// variants by key, presets by name), with source ids assigned in that order and no clock value
/// unless `createdAt` is set. The same rows therefore give a byte-identical index, whatever
/// order they were staged in, with the same SQLite library version.
///
/// Not thread-safe: ``BundleWriter`` serialises access.
final class IndexBuilder {
    let generator: String
    let stagingPath: String
    private let staging: SQLiteConnection
    private var pendingRows = 0
    private var published = false

    /// Staged rows are committed in batches of this many sources (the staging file is scratch:
    /// no journal, no flush).
    private static let batchSize = 512

    /// The staging tables: the index's own columns, with sources named by identifier (ids are
    /// only assigned at publication) and placeholders folded into the source row.
    private static let stagingSchema = """
        PRAGMA journal_mode = OFF;
        PRAGMA synchronous = OFF;
        CREATE TABLE sources (
            source         TEXT PRIMARY KEY NOT NULL,
            content_sha256 TEXT NOT NULL,
            format         TEXT NOT NULL,
            pixel_width    INTEGER NOT NULL,
            pixel_height   INTEGER NOT NULL,
            byte_count     INTEGER NOT NULL,
            has_placeholder INTEGER NOT NULL,
            thumbhash      BLOB,
            blurhash       TEXT,
            average_color  TEXT
        ) WITHOUT ROWID;
        CREATE TABLE variants (
            cache_key    TEXT PRIMARY KEY NOT NULL,
            source       TEXT NOT NULL,
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
            has_alpha    INTEGER NOT NULL
        ) WITHOUT ROWID;
        CREATE INDEX variants_by_blob ON variants (blob_sha256);
        CREATE TABLE variant_presets (
            preset    TEXT NOT NULL,
            cache_key TEXT NOT NULL,
            PRIMARY KEY (cache_key, preset)
        ) WITHOUT ROWID;
        CREATE TABLE added_blobs (
            path TEXT PRIMARY KEY NOT NULL
        ) WITHOUT ROWID;
        BEGIN;
        """

    /// Creates an empty staging database at `stagingPath` (replacing any file there).
    init(generator: String, stagingPath: String) throws {
        self.generator = generator
        self.stagingPath = stagingPath
        try? FileManager.default.removeItem(atPath: stagingPath)
        staging = try SQLiteConnection(path: stagingPath, readOnly: false)
        try staging.execute(Self.stagingSchema)
    }

    /// Removes the staging file.
    func discard() {
        staging.finalizeStatements()
        if !published { try? staging.execute("COMMIT") }
        try? FileManager.default.removeItem(atPath: stagingPath)
    }

    // MARK: Staging

    /// Stages one source row. Throws ``IndexBuilderError/duplicate(_:)`` if it is already staged.
    func add(_ source: BundleContents.Source) throws {
        guard try !exists("SELECT 1 FROM sources WHERE source = ?", source.identifier.rawValue) else {
            throw IndexBuilderError.duplicate("source \(source.identifier) is listed twice")
        }
        let placeholder = source.placeholder.flatMap { $0.isEmpty ? nil : $0 }
        try staging.statement("""
            INSERT INTO sources (source, content_sha256, format, pixel_width, pixel_height, byte_count,
                has_placeholder, thumbhash, blurhash, average_color)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """).bind(
                .text(source.identifier.rawValue), .text(source.contentSHA256), .text(source.format),
                .int(source.pixelSize.width), .int(source.pixelSize.height), .int(source.byteCount),
                .int(placeholder == nil ? 0 : 1), placeholder?.thumbHash.map { .blob($0) } ?? .null,
                .string(placeholder?.blurHash), .string(placeholder?.averageColor?.hex)).run()
        try countRow()
    }

    /// Stages one variant row and its presets. Throws ``IndexBuilderError/duplicate(_:)`` if its
    /// key is already staged.
    func add(_ variant: BundleContents.Variant) throws {
        guard try !exists("SELECT 1 FROM variants WHERE cache_key = ?", variant.key.rawValue) else {
            throw IndexBuilderError.duplicate("variant \(variant.key) is listed twice")
        }
        let spec = variant.key.spec
        try staging.statement("""
            INSERT INTO variants (cache_key, source, width_pt, height_pt, scale, fit, gravity, background,
                upscale, format, quality, options, processors, pixel_width, pixel_height, byte_count,
                blob_sha256, has_alpha)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """).bind([
                .text(variant.key.rawValue), .text(variant.key.source.rawValue), .int(spec.width), .int(spec.height),
                .int(spec.scale), .text(spec.fit.kind.rawValue), .string(spec.fit.gravity?.rawValue),
                .string(spec.fit.background?.hex), .int(spec.allowUpscale ? 1 : 0), .text(spec.format.rawValue),
                .int(spec.quality), .text(spec.options.tokens.joined(separator: "-")),
                .text(Processor.token(for: spec.processors)), .int(variant.pixelSize.width),
                .int(variant.pixelSize.height), .int(variant.byteCount), .text(variant.blobSHA256),
                .int(variant.hasAlpha ? 1 : 0),
            ]).run()
        for preset in Set(variant.presets) {
            try staging.statement("INSERT INTO variant_presets (preset, cache_key) VALUES (?, ?)")
                .bind(.text(preset), .text(variant.key.rawValue)).run()
        }
    }

    /// Notes a blob file this run created (absent before), to flush it before publishing, or to
    /// remove it if the run is abandoned.
    func recordAdded(_ path: String) throws {
        try staging.statement("INSERT OR IGNORE INTO added_blobs (path) VALUES (?)").bind(.text(path)).run()
    }

    /// Calls `body` with the path of every blob recorded by ``recordAdded(_:)``.
    func forEachAdded(_ body: (String) throws -> Void) throws {
        let statement = try staging.statement("SELECT path FROM added_blobs")
        defer { try? statement.reset() }
        while try statement.step() {
            try body(statement.text(0))
        }
    }

    /// Forgets every staged row (not the added blobs).
    func clearRows() throws {
        try staging.execute("DELETE FROM sources; DELETE FROM variants; DELETE FROM variant_presets")
    }

    private func exists(_ sql: String, _ value: String) throws -> Bool {
        let statement = try staging.statement(sql)
        defer { try? statement.reset() }
        return try statement.bind(.text(value)).step()
    }

    private func countRow() throws {
        guard !published else { return }
        pendingRows += 1
        if pendingRows >= Self.batchSize {
            pendingRows = 0
            try staging.execute("COMMIT; BEGIN")
        }
    }

    // MARK: Reading staged rows

    /// The first staged variant whose source is not staged, if any.
    func variantWithoutSource() throws -> String? {
        let statement = try staging.statement(
            "SELECT cache_key FROM variants WHERE source NOT IN (SELECT source FROM sources) LIMIT 1")
        defer { try? statement.reset() }
        return try statement.step() ? statement.text(0) : nil
    }

    /// Calls `body` with every distinct blob the staged variants reference.
    func forEachBlob(_ body: (_ sha256: String, _ format: ImageFormat, _ byteCount: Int) throws -> Void) throws {
        let statement = try staging.statement(
            "SELECT DISTINCT blob_sha256, format, byte_count FROM variants ORDER BY blob_sha256, format")
        defer { try? statement.reset() }
        while try statement.step() {
            guard let format = ImageFormat(rawValue: statement.text(1)) else { continue }
            try body(statement.text(0), format, statement.int(2))
        }
    }

    /// Whether a staged variant references the blob `sha256` in `format`'s file.
    func references(sha256: String, fileExtension: String) throws -> Bool {
        let statement = try staging.statement("SELECT format FROM variants WHERE blob_sha256 = ?")
        defer { try? statement.reset() }
        _ = try statement.bind(.text(sha256))
        while try statement.step() {
            if ImageFormat(rawValue: statement.text(0))?.fileExtension == fileExtension { return true }
        }
        return false
    }

    func count(_ table: String) throws -> Int {
        let statement = try staging.statement("SELECT COUNT(*) FROM \(table)")
        defer { try? statement.reset() }
        return try statement.step() ? statement.int(0) : 0
    }

    // MARK: Publishing

    /// Writes the index of every staged row into a new file at `path`, in one transaction.
    /// Staging ends here: rows added afterwards are not published.
    func publish(to path: String, createdAt: Date?) throws {
        if !published {
            published = true
            try staging.execute("COMMIT")
        }
        let sourceCount = try count("sources")
        let variantCount = try count("variants")

        let connection = try SQLiteConnection(path: path, readOnly: false)
        try connection.execute("""
            PRAGMA journal_mode = OFF;
            PRAGMA synchronous = OFF;
            PRAGMA page_size = 4096;
            PRAGMA application_id = \(BundleFormat.applicationID);
            """)
        try connection.execute("ATTACH DATABASE \(Self.quoted(stagingPath)) AS staging")
        try connection.transaction {
            for statement in BundleFormat.schema {
                try connection.execute(statement)
            }
            var meta: [(String, String)] = [
                (BundleFormat.MetaKey.formatMajor, String(BundleFormat.majorVersion)),
                (BundleFormat.MetaKey.formatMinor, String(BundleFormat.minorVersion)),
                (BundleFormat.MetaKey.generator, generator),
                (BundleFormat.MetaKey.sourceCount, String(sourceCount)),
                (BundleFormat.MetaKey.variantCount, String(variantCount)),
            ]
            if let createdAt {
                meta.append((BundleFormat.MetaKey.createdAt, ISO8601DateFormatter().string(from: createdAt)))
            }
            for (key, value) in meta.sorted(by: { $0.0 < $1.0 }) {
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
                    FROM staging.sources p JOIN sources s ON s.source = p.source
                    WHERE p.has_placeholder ORDER BY s.id;
                INSERT INTO variants (cache_key, source_id, width_pt, height_pt, scale, fit, gravity, background,
                        upscale, format, quality, options, processors, pixel_width, pixel_height, byte_count,
                        blob_sha256, has_alpha)
                    SELECT v.cache_key, s.id, v.width_pt, v.height_pt, v.scale, v.fit, v.gravity, v.background,
                        v.upscale, v.format, v.quality, v.options, v.processors, v.pixel_width, v.pixel_height,
                        v.byte_count, v.blob_sha256, v.has_alpha
                    FROM staging.variants v JOIN sources s ON s.source = v.source ORDER BY v.cache_key;
                INSERT INTO variant_presets (preset, cache_key)
                    SELECT preset, cache_key FROM staging.variant_presets ORDER BY cache_key, preset;
                """)
        }
        connection.finalizeStatements()
        try connection.execute("DETACH DATABASE staging")
        try connection.execute("PRAGMA optimize")
    }

    private static func quoted(_ text: String) -> String {
        "'" + text.replacingOccurrences(of: "'", with: "''") + "'"
    }
}

enum IndexBuilderError: Error, CustomStringConvertible {
    /// The same source or variant key staged twice.
    case duplicate(String)

    var description: String {
        switch self {
        case .duplicate(let detail): return detail
        }
    }
}
