import Foundation
import WarmCache

/// Builds `index.sqlite` while a run is in progress, without holding its rows in memory.
///
/// Rows arrive in any order (sources finish when they finish) and go straight into a staging
/// database on disk (``StagingDatabase``), or wait unstaged while the run may still turn out to
/// change nothing (``deferRows()``); either way their digest (``RowsDigest``) is kept as they
/// come. ``publish(to:createdAt:manifestFingerprint:shard:)`` then writes the index itself
/// (``IndexPublication``). The same rows therefore give a byte-identical index, whatever order
/// they were staged in, with the same SQLite library version.
///
/// What else a run asks of its rows is decided by the parts this type holds together: the blobs
/// they reference and add (``StagedBlobs``), merging another index's rows (``IndexMerge``),
/// `meta` and the contents' digest (``IndexMeta``), and whether the index in place already
/// holds them (``PublishedComparison``). This type decides when rows are staged: now, later, or
/// never (a no-op re-warm's).
///
/// Not thread-safe: ``BundleWriter`` serialises access.
final class IndexBuilder {
    let stagingPath: String
    private let staging: StagingDatabase
    private let blobs: StagedBlobs
    private let meta: IndexMeta
    /// The digest of the rows staged through ``add(_:variants:)``; `nil` once rows came another way
    /// (``merge(indexAt:)``).
    private(set) var rowsDigest: RowsDigest? = RowsDigest()
    /// Rows added but not staged yet (``deferRows()``).
    private var deferred: DeferredRows?

    /// Creates an empty staging database at `stagingPath` (replacing any file there).
    init(generator: String, stagingPath: String) throws {
        self.stagingPath = stagingPath
        staging = try StagingDatabase(path: stagingPath)
        blobs = StagedBlobs(staging.connection)
        meta = IndexMeta(generator: generator)
    }

    /// Removes the staging file.
    func discard() {
        deferred?.remove()
        deferred = nil
        staging.discard()
    }

    // MARK: Staging

    /// Stages one source's row and its variants' rows and presets. Throws
    /// ``IndexBuilderError/inconsistent(_:)`` for a source or a variant key staged before, or a
    /// variant of another source. While rows are deferred (``deferRows()``) they wait unstaged,
    /// and a duplicate is found when they are staged.
    func add(_ source: BundleContents.Source, variants: [BundleContents.Variant]) throws {
        if let stray = variants.first(where: { $0.key.source != source.identifier }) {
            throw IndexBuilderError.inconsistent("variant \(stray.key) is not of source \(source.identifier)")
        }
        let rows = SourceRows(source, variants: variants)
        if let deferred {
            try deferred.append(rows, variantCount: variants.count)
        } else {
            try staging.stage(rows)
        }
        rowsDigest?.add(rows)
    }

    /// Lets the rows added from now on wait in a scratch file beside the staging database instead
    /// of being staged, until something reads the staged rows or a blob is added
    /// (``recordAdded(_:)``). A no-op re-warm's commit needs only their digest and counts, so its
    /// rows are never staged (six indexed inserts per source, most of what completing such a
    /// source cost); any other run stages them when the first blob is added or at its commit.
    func deferRows() throws {
        guard deferred == nil, !staging.hasEnded else { return }
        deferred = try DeferredRows(path: stagingPath + "-deferred")
    }

    /// Stages the deferred rows, if any, and stops deferring. Whatever reads the staged rows
    /// calls it first.
    func stageDeferredRows() throws {
        guard let deferred else { return }
        self.deferred = nil
        defer { deferred.remove() }
        try deferred.forEach { rows in
            try staging.stage(rows)
        }
    }

    /// Forgets every staged row (not the added blobs).
    func clearRows() throws {
        try staging.clear()
        if let deferred {
            deferred.remove()
            self.deferred = try DeferredRows(path: deferred.path)
        }
        rowsDigest = RowsDigest()
    }

    /// The rows of a staging table (deferred rows are staged first).
    func count(_ table: String) throws -> Int {
        if table != StagedBlobs.AddedBlobs.table { try stageDeferredRows() }
        return try staging.count(table)
    }

    /// Ends staging (commits the staged rows): rows added afterwards are not published, and other
    /// connections may read the staging file (``blobTotals(ofStagingAt:)``) until it is next written.
    func endStaging() throws {
        guard !staging.hasEnded else { return }
        try stageDeferredRows()
        try staging.end()
    }

    // MARK: Merging

    /// Stages the rows of the index at `path` (a part given to `warm-cache merge`) that are not
    /// staged yet, or returns the first conflict and stages nothing (``IndexMerge``).
    func merge(indexAt path: String) throws -> IndexMerge.Conflict? {
        precondition(!staging.hasEnded, "rows merged after publication are not published")
        try stageDeferredRows()
        rowsDigest = nil
        return try IndexMerge.merge(indexAt: path, into: staging)
    }

    // MARK: Blobs

    /// Notes a blob file this run created (absent before), to flush it before publishing, or to
    /// remove it if the run is abandoned.
    /// A blob added means the run is not a no-op: deferred rows are staged from here on.
    func recordAdded(_ path: String) throws {
        try stageDeferredRows()
        try blobs.recordAdded(path)
    }

    /// Calls `body` with the path of every blob recorded by ``recordAdded(_:)``.
    func forEachAdded(_ body: (String) throws -> Void) throws {
        try blobs.forEachAdded(body)
    }

    /// Calls `body` with every distinct blob the staged variants reference.
    func forEachBlob(_ body: (_ sha256: String, _ format: ImageFormat, _ byteCount: Int) throws -> Void) throws {
        try stageDeferredRows()
        try blobs.forEach(body)
    }

    /// Whether a staged variant references the blob `sha256` in `format`'s file.
    func references(sha256: String, fileExtension: String) throws -> Bool {
        try stageDeferredRows()
        return try blobs.references(sha256: sha256, fileExtension: fileExtension)
    }

    /// The distinct blobs the variants staged at `path` reference, and their total bytes, read
    /// through a connection of its own, so that it can run beside this builder's reading once
    /// ``endStaging()`` ran (and before anything writes the file again).
    static func blobTotals(ofStagingAt path: String) throws -> (count: Int, bytes: Int) {
        try StagedBlobs.totals(ofStagingAt: path)
    }

    // MARK: Publishing

    /// Writes the index of every staged row into a new file at `path`, in one transaction, with
    /// `meta` holding `createdAt`, `manifestFingerprint` and `shard` when set.
    /// Staging ends here: rows added afterwards are not published.
    func publish(to path: String, createdAt: Date?, manifestFingerprint: String? = nil, shard: Shard? = nil) throws {
        try endStaging()
        let meta = try metaRows(createdAt: createdAt, manifestFingerprint: manifestFingerprint, shard: shard)
        try IndexPublication.write(stagingAt: stagingPath, to: path, meta: meta)
        // What follows (garbage collection) asks one question per blob file: in one read
        // transaction, instead of SQLite taking and dropping its file locks and re-reading the
        // header for every one.
        try staging.connection.execute("BEGIN")
    }

    /// The digest of the index ``publish(to:createdAt:manifestFingerprint:shard:)`` would write:
    /// its `meta` rows and the staged rows' ``RowsDigest``; `nil` when rows were staged other
    /// than by ``add(_:variants:)``. Deferred rows stay unstaged: their digest and counts are known.
    func contentsDigest(createdAt: Date?, manifestFingerprint: String?, shard: Shard?) throws -> String? {
        guard let rowsDigest else { return nil }
        return IndexMeta.digest(
            rows: rowsDigest, meta: try metaRows(createdAt: createdAt, manifestFingerprint: manifestFingerprint, shard: shard))
    }

    /// The `meta` rows of the index the staged and deferred rows make, sorted by key.
    private func metaRows(createdAt: Date?, manifestFingerprint: String?, shard: Shard?) throws -> [(String, String)] {
        meta.rows(sourceCount: try staging.count(IndexSchema.Sources.table.name) + (deferred?.sourceCount ?? 0),
                  variantCount: try staging.count(IndexSchema.Variants.table.name) + (deferred?.variantCount ?? 0),
                  createdAt: createdAt, manifestFingerprint: manifestFingerprint, shard: shard)
    }

    // MARK: Comparing

    /// Whether ``publish(to:createdAt:manifestFingerprint:shard:)`` would write an index with the
    /// same contents as the one at `path` (``PublishedComparison``); anything that cannot be
    /// compared counts as a difference. Staging ends here, as with publishing.
    func matches(indexAt path: String, createdAt: Date?, manifestFingerprint: String?, shard: Shard?) -> Bool {
        let meta: [(String, String)]
        do {
            try endStaging()
            meta = try metaRows(createdAt: createdAt, manifestFingerprint: manifestFingerprint, shard: shard)
        } catch {
            return false
        }
        return PublishedComparison.matches(indexAt: path, meta: meta, staging: staging)
    }

    /// The identifiers of the sources in the index at `path` that are not staged, sorted (none
    /// if that index cannot be read). Staging ends here, as with publishing (a database is
    /// attached outside a transaction).
    func sourcesMissing(fromIndexAt path: String) -> [String] {
        do {
            try endStaging()
        } catch {
            return []
        }
        return PublishedComparison.sourcesMissing(fromIndexAt: path, staging: staging)
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
