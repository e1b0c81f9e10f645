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
    /// The digest of the rows staged through ``add(_:variants:)``; `nil` once rows came another way
    /// (``merge(indexAt:)``).
    private(set) var rowsDigest: RowsDigest? = RowsDigest()
    /// Rows added but not staged yet (``deferRows()``).
    private var deferred: DeferredRows?

    /// Staged rows are committed in batches of this many sources (the staging file is scratch:
    /// no journal, no flush).
    private static let batchSize = 512

    /// The staging database has the index's own tables (not its look-up indexes); its source ids
    /// are provisional (the order rows arrived in) and are renumbered at publication. One addition:
    /// the blobs this run added, appended in the order they came (a path may come twice, which is
    /// harmless).
    ///
    /// Rows arrive in no useful order, so nothing is indexed that the run itself does not read:
    /// the index that finds the variants of a blob is built once, sorted, when it is first needed
    /// (``blobIndex``), instead of growing by one random insert per variant.
    private static let stagingSetup = """
        PRAGMA journal_mode = OFF;
        PRAGMA synchronous = OFF;
        """
    private static let stagingAdditions = """
        CREATE TABLE added_blobs (
            path TEXT NOT NULL
        );
        BEGIN;
        """

    /// The staging index of blobs (covering what ``forEachBlob(_:)`` and
    /// ``references(sha256:fileExtension:)`` read), created by the first of them.
    private static let blobIndex = """
        CREATE INDEX variants_by_blob ON variants (blob_sha256, format, byte_count)
        """

    private var blobsIndexed = false

    /// Creates an empty staging database at `stagingPath` (replacing any file there).
    init(generator: String, stagingPath: String) throws {
        self.generator = generator
        self.stagingPath = stagingPath
        try? FileManager.default.removeItem(atPath: stagingPath)
        staging = try SQLiteConnection(path: stagingPath, readOnly: false)
        try staging.execute(Self.stagingSetup)
        // The index's tables with their keys (which catch a source or key staged twice), but not its
        // look-up indexes: nothing reads the staged rows by them, and each costs a write per row.
        for statement in BundleFormat.schema where !statement.hasPrefix("CREATE INDEX") {
            try staging.execute(statement)
        }
        try staging.execute(Self.stagingAdditions)
    }

    /// Removes the staging file.
    func discard() {
        deferred?.remove()
        deferred = nil
        staging.finalizeStatements()
        try? staging.execute("COMMIT")
        try? FileManager.default.removeItem(atPath: stagingPath)
    }

    // MARK: Staging

    /// Stages one source's row and its variants' rows and presets. Throws
    /// ``IndexBuilderError/inconsistent(_:)`` for a source or a variant key staged before, or a
    /// variant of another source. The table's own keys find duplicates (no look-up first), and the
    /// statements are prepared once: a run stages one source per finished source. While rows are
    /// deferred (``deferRows()``) they wait unstaged, and a duplicate is found when they are staged.
    func add(_ source: BundleContents.Source, variants: [BundleContents.Variant]) throws {
        if let stray = variants.first(where: { $0.key.source != source.identifier }) {
            throw IndexBuilderError.inconsistent("variant \(stray.key) is not of source \(source.identifier)")
        }
        let rows = SourceRows(source, variants: variants)
        if let deferred {
            try deferred.append(rows, variantCount: variants.count)
        } else {
            try stage(rows)
            try countRow()
        }
        rowsDigest?.add(rows)
    }

    /// Lets the rows added from now on wait in a scratch file beside the staging database instead
    /// of being staged, until something reads the staged rows or a blob is added
    /// (``recordAdded(_:)``). A no-op re-warm's commit needs only their digest and counts, so its
    /// rows are never staged (six indexed inserts per source, most of what completing such a
    /// source cost); any other run stages them when the first blob is added or at its commit.
    func deferRows() throws {
        guard deferred == nil, !published else { return }
        deferred = try DeferredRows(path: stagingPath + "-deferred")
    }

    /// Stages the deferred rows, if any, and stops deferring. Whatever reads the staged rows
    /// calls it first.
    func stageDeferredRows() throws {
        guard let deferred else { return }
        self.deferred = nil
        defer { deferred.remove() }
        try deferred.forEach { rows in
            try stage(rows)
            try countRow()
        }
    }

    /// Inserts one source's rows into the staging tables.
    private func stage(_ rows: SourceRows) throws {
        var sourceID = 0
        var variantKey = SQLiteValue.null
        func text(_ value: SQLiteValue?) -> String {
            if case .text(let text)? = value { return text }
            return "?"
        }
        try rows.forEachRow { table, values in
            switch table {
            case .sources:
                do {
                    try staging.statement(slot: Slot.source, """
                        INSERT INTO sources (source, content_sha256, format, pixel_width, pixel_height, byte_count)
                        VALUES (?, ?, ?, ?, ?, ?)
                        """).bind(values).run()
                } catch let error as SQLiteError where error.isConstraint {
                    throw IndexBuilderError.inconsistent("source \(text(values.first)) is listed twice")
                }
                sourceID = staging.lastInsertRowID
            case .placeholders:
                try staging.statement(slot: Slot.placeholder,
                    "INSERT INTO placeholders (source_id, thumbhash, blurhash, average_color) VALUES (?, ?, ?, ?)")
                    .bind([.int(sourceID)] + values).run()
            case .variants:
                variantKey = values.first ?? .null
                do {
                    try staging.statement(slot: Slot.variant, """
                        INSERT INTO variants (cache_key, source_id, width_pt, height_pt, scale, fit, gravity, background,
                            upscale, format, quality, options, processors, pixel_width, pixel_height, byte_count,
                            blob_sha256, has_alpha, quality_target, encoder_quality, quality_score)
                        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                        """).bind([variantKey, .int(sourceID)] + values.dropFirst()).run()
                } catch let error as SQLiteError where error.isConstraint {
                    throw IndexBuilderError.inconsistent("variant \(text(variantKey)) is listed twice")
                }
            case .variantPresets:
                for preset in values {
                    try staging.statement(slot: Slot.preset, "INSERT INTO variant_presets (preset, cache_key) VALUES (?, ?)")
                        .bind(preset, variantKey).run()
                }
            }
        }
    }

    /// Slots of the statements prepared once for ``add(_:variants:)``.
    private enum Slot {
        static let source = 0, placeholder = 1, variant = 2, preset = 3
    }

    // MARK: Merging

    /// A row of another index that contradicts a staged one.
    enum MergeConflict: Equatable {
        /// The same source with another original (or format, size or placeholder).
        case source(identifier: String, stagedSHA256: String, incomingSHA256: String)
        /// The same key with another blob (or size, alpha or columns).
        case variant(key: String, stagedBlob: String, incomingBlob: String)
    }

    /// Stages the rows of the index at `path` (a part given to `warm-cache merge`) that are not
    /// staged yet. A source or key staged before must have the same row (presets aside, which are
    /// united): otherwise nothing of that index is staged and the first conflict is returned.
    ///
    /// The rows go set-wise from the attached file into the staging tables inside SQLite, so no
    /// row passes through memory and a merge of any size runs at SQLite's own speed; publication
    /// is then the same as for a warm's rows.
    func merge(indexAt path: String) throws -> MergeConflict? {
        precondition(!published, "rows merged after publication are not published")
        try stageDeferredRows()
        rowsDigest = nil
        try staging.execute("COMMIT")
        try staging.execute("ATTACH DATABASE \(Self.quoted(path)) AS part")
        defer {
            try? staging.execute("DETACH DATABASE part")
            try? staging.execute("BEGIN")
        }
        return try staging.transaction { () throws -> MergeConflict? in
            if let conflict = try firstConflict() { return conflict }
            let orphan = try staging.statement("""
                SELECT pv.cache_key FROM part.variants pv
                WHERE NOT EXISTS (SELECT 1 FROM part.sources ps WHERE ps.id = pv.source_id) LIMIT 1
                """)
            defer { try? orphan.reset() }
            if try orphan.step() {
                throw IndexBuilderError.inconsistent("variant \(orphan.text(0)) belongs to no listed source")
            }
            let last = try staging.statement("SELECT coalesce(max(id), 0) FROM main.sources")
            defer { try? last.reset() }
            let before = try last.step() ? last.int(0) : 0
            try staging.execute("""
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
    private func firstConflict() throws -> MergeConflict? {
        let sources = try staging.statement("""
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
        let variants = try staging.statement("""
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

    /// Notes a blob file this run created (absent before), to flush it before publishing, or to
    /// remove it if the run is abandoned.
    /// A blob added means the run is not a no-op: deferred rows are staged from here on.
    func recordAdded(_ path: String) throws {
        try stageDeferredRows()
        try staging.statement("INSERT INTO added_blobs (path) VALUES (?)").bind(.text(path)).run()
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
        try staging.execute("""
            DELETE FROM sources; DELETE FROM placeholders; DELETE FROM variants; DELETE FROM variant_presets
            """)
        if let deferred {
            deferred.remove()
            self.deferred = try DeferredRows(path: deferred.path)
        }
        rowsDigest = RowsDigest()
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

    /// Calls `body` with every distinct blob the staged variants reference.
    func forEachBlob(_ body: (_ sha256: String, _ format: ImageFormat, _ byteCount: Int) throws -> Void) throws {
        try stageDeferredRows()
        try indexBlobs()
        let statement = try staging.statement(
            "SELECT DISTINCT blob_sha256, format, byte_count FROM variants ORDER BY blob_sha256, format")
        defer { try? statement.reset() }
        while try statement.step() {
            guard let format = ImageFormat(rawValue: statement.text(1)) else { continue }
            try body(statement.text(0), format, statement.int(2))
        }
    }

    /// Builds the staging index of blobs once, when it is first read.
    private func indexBlobs() throws {
        guard !blobsIndexed else { return }
        try staging.execute(Self.blobIndex)
        blobsIndexed = true
    }

    /// Whether a staged variant references the blob `sha256` in `format`'s file.
    func references(sha256: String, fileExtension: String) throws -> Bool {
        try stageDeferredRows()
        try indexBlobs()
        let statement = try staging.statement("SELECT format FROM variants WHERE blob_sha256 = ?")
        defer { try? statement.reset() }
        _ = try statement.bind(.text(sha256))
        while try statement.step() {
            if ImageFormat(rawValue: statement.text(0))?.fileExtension == fileExtension { return true }
        }
        return false
    }

    /// The rows of a staging table (deferred rows are staged first).
    func count(_ table: String) throws -> Int {
        if table != "added_blobs" { try stageDeferredRows() }
        return try stagedCount(table)
    }

    private func stagedCount(_ table: String) throws -> Int {
        let statement = try staging.statement("SELECT COUNT(*) FROM \(table)")
        defer { try? statement.reset() }
        return try statement.step() ? statement.int(0) : 0
    }

    // MARK: Publishing

    /// Writes the index of every staged row into a new file at `path`, in one transaction, with
    /// `meta` holding `createdAt`, `manifestFingerprint` and `shard` when set.
    /// Staging ends here: rows added afterwards are not published.
    func publish(to path: String, createdAt: Date?, manifestFingerprint: String? = nil, shard: Shard? = nil) throws {
        try endStaging()
        let meta = try metaRows(createdAt: createdAt, manifestFingerprint: manifestFingerprint, shard: shard)

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
        // What follows (garbage collection) asks one question per blob file: in one read
        // transaction, instead of SQLite taking and dropping its file locks and re-reading the
        // header for every one.
        try staging.execute("BEGIN")
    }

    /// Ends staging (commits the staged rows): rows added afterwards are not published, and other
    /// connections may read the staging file (``blobTotals(ofStagingAt:)``) until it is next written.
    func endStaging() throws {
        guard !published else { return }
        try stageDeferredRows()
        published = true
        try staging.execute("COMMIT")
    }

    /// The digest of the index ``publish(to:createdAt:manifestFingerprint:shard:)`` would write:
    /// its `meta` rows and the staged rows' ``RowsDigest``; `nil` when rows were staged other
    /// than by ``add(_:variants:)``. Deferred rows stay unstaged: their digest and counts are known.
    func contentsDigest(createdAt: Date?, manifestFingerprint: String?, shard: Shard?) throws -> String? {
        guard let rowsDigest else { return nil }
        var text = "rows \(rowsDigest.hex)\n"
        for (key, value) in try metaRows(createdAt: createdAt, manifestFingerprint: manifestFingerprint, shard: shard) {
            text += "meta \(key.count) \(key) \(value.utf8.count) \(value)\n"
        }
        return ContentHash.sha256(Data(text.utf8))
    }

    /// The `meta` rows of the index the staged rows make, sorted by key.
    private func metaRows(createdAt: Date?, manifestFingerprint: String?, shard: Shard?) throws -> [(String, String)] {
        var meta: [(String, String)] = [
            (BundleFormat.MetaKey.formatMajor, String(BundleFormat.majorVersion)),
            (BundleFormat.MetaKey.formatMinor, String(BundleFormat.minorVersion)),
            (BundleFormat.MetaKey.generator, generator),
            (BundleFormat.MetaKey.sourceCount, String(try stagedCount("sources") + (deferred?.sourceCount ?? 0))),
            (BundleFormat.MetaKey.variantCount, String(try stagedCount("variants") + (deferred?.variantCount ?? 0))),
        ]
        if let createdAt {
            meta.append((BundleFormat.MetaKey.createdAt, ISO8601DateFormatter().string(from: createdAt)))
        }
        if let manifestFingerprint {
            meta.append((BundleFormat.MetaKey.manifestFingerprint, manifestFingerprint))
        }
        if let shard {
            meta.append((BundleFormat.MetaKey.shard, shard.description))
        }
        return meta.sorted(by: { $0.0 < $1.0 })
    }

    // MARK: Comparing

    /// Whether ``publish(to:createdAt:manifestFingerprint:shard:)`` would write an index with the
    /// same contents as the one at `path`: the same `meta`, and the same rows in every table (a
    /// source's rows matched by its identifier, as source ids are only a numbering). A no-op
    /// re-warm asks this instead of writing a second index to compare bytes: the check runs
    /// inside SQLite, one look-up by key per staged row, and costs a fraction of writing the
    /// index. Anything that cannot be compared (an unreadable or foreign file, another schema)
    /// counts as a difference. Staging ends here, as with publishing.
    func matches(indexAt path: String, createdAt: Date?, manifestFingerprint: String?, shard: Shard?) -> Bool {
        do {
            try endStaging()
            let meta = try metaRows(createdAt: createdAt, manifestFingerprint: manifestFingerprint, shard: shard)
            try staging.execute("ATTACH DATABASE \(Self.quoted(path)) AS published")
            defer {
                staging.finalizeStatements()
                try? staging.execute("DETACH DATABASE published")
            }
            // One read transaction for all the questions (no locks taken and dropped between them).
            try staging.execute("BEGIN")
            defer { try? staging.execute("COMMIT") }
            return try publishedRowsMatch(meta: meta)
        } catch {
            return false
        }
    }

    /// The comparison of ``matches(indexAt:createdAt:manifestFingerprint:shard:)``, with the
    /// published index attached as `published`. The columns compared are read from the schema
    /// itself, so a column added to ``BundleFormat/schema`` is compared without being listed here.
    private func publishedRowsMatch(meta: [(String, String)]) throws -> Bool {
        let publishedMeta = try staging.statement("SELECT key, value FROM published.meta ORDER BY key")
        var found: [(String, String)] = []
        while try publishedMeta.step() {
            found.append((publishedMeta.text(0), publishedMeta.text(1)))
        }
        guard found.elementsEqual(meta, by: { $0 == $1 }) else { return false }

        func number(_ sql: String) throws -> Int {
            let statement = try staging.statement(sql)
            return try statement.step() ? statement.int(0) : -1
        }
        func columns(_ table: String, except excluded: Set<String>) throws -> [String] {
            let statement = try staging.statement("SELECT name FROM pragma_table_info('\(table)') ORDER BY cid")
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
        guard matchedSources == (try count("sources")) else { return false }
        let matchedVariants = try number("""
            SELECT count(*) FROM main.variants v JOIN main.sources s ON s.id = v.source_id
                JOIN published.variants p ON p.cache_key = v.cache_key
                JOIN published.sources ps ON ps.id = p.source_id AND ps.source = s.source
            WHERE \(try same("variants", "v", "p", except: ["source_id"]))
            """)
        guard matchedVariants == (try count("variants")) else { return false }
        let matchedPresets = try number("""
            SELECT count(*) FROM main.variant_presets v
                JOIN published.variant_presets p ON p.preset = v.preset AND p.cache_key = v.cache_key
            """)
        guard matchedPresets == (try count("variant_presets")) else { return false }
        let matchedPlaceholders = try number("""
            SELECT count(*) FROM main.placeholders x JOIN main.sources s ON s.id = x.source_id
                JOIN published.sources ps ON ps.source = s.source
                JOIN published.placeholders p ON p.source_id = ps.id
            WHERE \(try same("placeholders", "x", "p", except: ["source_id"]))
            """)
        return matchedPlaceholders == (try count("placeholders"))
    }

    /// The identifiers of the sources in the index at `path` that are not staged, sorted (none
    /// if that index cannot be read). One query inside SQLite: the staged sources' key finds each.
    /// Staging ends here, as with publishing (a database is attached outside a transaction).
    func sourcesMissing(fromIndexAt path: String) -> [String] {
        do {
            try endStaging()
            try staging.execute("ATTACH DATABASE \(Self.quoted(path)) AS published")
            defer {
                staging.finalizeStatements()
                try? staging.execute("DETACH DATABASE published")
            }
            let statement = try staging.statement("""
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

    /// The distinct blobs the variants staged at `path` reference, and their total bytes, read
    /// through a connection of its own, so that it can run beside this builder's reading once
    /// ``endStaging()`` ran (and before anything writes the file again).
    static func blobTotals(ofStagingAt path: String) throws -> (count: Int, bytes: Int) {
        let connection = try SQLiteConnection(path: path, readOnly: true)
        try connection.execute("PRAGMA mmap_size = 0")  // read through the page cache: no resident map of a large file
        let statement = try connection.statement("""
            SELECT count(*), coalesce(sum(byte_count), 0)
            FROM (SELECT DISTINCT blob_sha256, format, byte_count FROM variants)
            """)
        defer { try? statement.reset() }
        return try statement.step() ? (statement.int(0), statement.int(1)) : (0, 0)
    }

    private static func quoted(_ text: String) -> String {
        "'" + text.replacingOccurrences(of: "'", with: "''") + "'"
    }
}

enum IndexBuilderError: Error, CustomStringConvertible {
    /// The same source or variant key staged twice, or a variant of a source not staged.
    case inconsistent(String)

    var description: String {
        switch self {
        case .inconsistent(let detail): return detail
        }
    }
}
