import Foundation
import WarmCache

/// One bundle given to `warm-cache merge`: what its `meta` says, read when opened, and its blobs,
/// streamed on request (never held: a merge's memory does not grow with the parts' size).
///
/// The part's index is opened for each read and closed after it: a reader maps its index into
/// memory, and a merge of many large parts would otherwise keep every part's pages resident.
struct BundlePart {
    let url: URL
    let formatVersion: String
    let generator: String
    let fingerprint: String?
    let shard: Shard?

    /// The path as the user gave it, for messages.
    var name: String { url.path }

    init(url: URL) throws(BundleMergeError) {
        self.url = url
        let bundle: CacheBundle
        do {
            bundle = try CacheBundle(contentsOf: url)
        } catch {
            throw BundleMergeError(.unreadablePart, "cannot merge \(url.path): \(PlainReason.of(error))")
        }
        formatVersion = "\(bundle.info.formatMajor).\(bundle.info.formatMinor)"
        generator = bundle.info.generator
        let meta: [String: String]
        do {
            meta = try bundle.query(BundlePart.meta)
        } catch {
            throw BundleMergeError(.unreadablePart, "cannot merge \(url.path): its index cannot be read: \(PlainReason.of(error))")
        }
        fingerprint = meta[BundleFormat.MetaKey.manifestFingerprint]
        shard = try meta[BundleFormat.MetaKey.shard].map { text throws(BundleMergeError) in
            do {
                return try Shard(parsing: text)
            } catch {
                throw BundleMergeError(.unreadablePart, "cannot merge \(url.path): its shard '\(text)' is not I/N")
            }
        }
    }

    // MARK: Rows

    /// Calls `body` with the blob of every variant of the part (a blob shared by several
    /// variants comes once per variant), streamed from its index.
    func forEachBlob(_ body: (_ sha256: String, _ format: ImageFormat, _ byteCount: Int) throws -> Void) throws {
        typealias V = IndexSchema.Variants
        try reading { connection in
            let statement = try connection.statement("SELECT \(V.blobSHA256), \(V.format), \(V.byteCount) FROM \(V.table)")
            defer { try? statement.reset() }
            while try statement.step() {
                let text = statement.text(V.format)
                guard let format = ImageFormat(rawValue: text) else {
                    throw BundleMergeError(.unreadablePart, "cannot merge \(url.path): its index lists a blob in "
                        + "the unknown format '\(text)' (run warm-cache verify on it)")
                }
                try body(statement.text(V.blobSHA256), format, statement.int(V.byteCount))
            }
        }
    }

    /// Whether this part's index has a row for the source.
    func has(_ source: SourceIdentifier) throws -> Bool {
        try exists("SELECT 1 FROM \(IndexSchema.Sources.table) WHERE \(IndexSchema.Sources.source) = ?", source.rawValue)
    }

    /// Whether this part's index has a row for the variant key.
    func has(cacheKey: String) throws -> Bool {
        try exists("SELECT 1 FROM \(IndexSchema.Variants.table) WHERE \(IndexSchema.Variants.cacheKey) = ?", cacheKey)
    }

    private func exists(_ sql: String, _ value: String) throws -> Bool {
        try reading { connection in
            let statement = try connection.statement(sql)
            defer { try? statement.reset() }
            return try statement.bind(.text(value)).step()
        }
    }

    /// Runs a read of this part's index. Errors of the index itself name the part; errors thrown by
    /// the caller's body (conflicts, writing the output) pass through unchanged.
    private func reading<T>(_ body: (SQLiteConnection) throws -> T) throws -> T {
        do {
            let connection = try SQLiteConnection(
                path: url.appendingPathComponent(BundleFormat.indexFileName).path, readOnly: true)
            return try body(connection)
        } catch let error as BundleMergeError {
            throw error
        } catch let error as BundleWriterError {
            throw error
        } catch {
            throw BundleMergeError(.unreadablePart, "cannot merge \(url.path): its index cannot be read: \(PlainReason.of(error))")
        }
    }

    private static func meta(_ connection: SQLiteConnection) throws -> [String: String] {
        typealias M = IndexSchema.Meta
        let statement = try connection.statement("SELECT \(M.key), \(M.value) FROM \(M.table)")
        var meta: [String: String] = [:]
        while try statement.step() {
            meta[statement.text(M.key)] = statement.text(M.value)
        }
        return meta
    }
}
