import Foundation
import WarmCache

/// One bundle given to `warm-cache merge`: what its `meta` says, read when opened, and its rows,
/// streamed on request (never held: a merge's memory does not grow with the parts' size).
struct BundlePart {
    let url: URL
    let formatVersion: String
    let generator: String
    let fingerprint: String?
    let shard: Shard?
    private let bundle: CacheBundle

    /// The path as the user gave it, for messages.
    var name: String { url.path }

    init(url: URL) throws(BundleMergeError) {
        self.url = url
        do {
            bundle = try CacheBundle(contentsOf: url)
        } catch {
            throw BundleMergeError(.unreadablePart, "cannot merge \(url.path): \(error)")
        }
        formatVersion = "\(bundle.info.formatMajor).\(bundle.info.formatMinor)"
        generator = bundle.info.generator
        let meta: [String: String]
        do {
            meta = try bundle.query(BundlePart.meta)
        } catch {
            throw BundleMergeError(.unreadablePart, "cannot merge \(url.path): its index cannot be read: \(error)")
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

    /// The file of a blob this part's index references.
    func blobURL(of variant: BundleContents.Variant) -> URL {
        url.appendingPathComponent(BundleFormat.objectPath(sha256: variant.blobSHA256, format: variant.key.spec.format))
    }

    // MARK: Rows

    /// Calls `body` with every source of the part.
    func forEachSource(_ body: (BundleContents.Source) throws -> Void) throws {
        try reading { connection in try IndexRows.forEachSource(connection, body) }
    }

    /// Calls `body` with every variant of the part, with its presets.
    func forEachVariant(_ body: (BundleContents.Variant) throws -> Void) throws {
        try reading { connection in try IndexRows.forEachVariant(connection, body) }
    }

    /// This part's row for a source, if it has one.
    func source(_ identifier: SourceIdentifier) throws -> BundleContents.Source? {
        try reading { connection in try IndexRows.source(identifier, in: connection) }
    }

    /// This part's row for a variant key, if it has one.
    func variant(_ key: VariantKey) throws -> BundleContents.Variant? {
        try reading { connection in try IndexRows.variant(key.rawValue, in: connection) }
    }

    /// Runs a read of this part's index. Errors of the index itself name the part; errors thrown by
    /// the caller's body (conflicts, writing the output) pass through unchanged.
    private func reading<T>(_ body: (SQLiteConnection) throws -> T) throws -> T {
        do {
            return try bundle.query(body)
        } catch let error as BundleMergeError {
            throw error
        } catch let error as BundleWriterError {
            throw error
        } catch let error as IndexRows.NonCanonicalKey {
            throw BundleMergeError(.unreadablePart, "cannot merge \(url.path): \(error)")
        } catch {
            throw BundleMergeError(.unreadablePart, "cannot merge \(url.path): its index cannot be read: \(error)")
        }
    }

    private static func meta(_ connection: SQLiteConnection) throws -> [String: String] {
        let statement = try connection.statement("SELECT key, value FROM meta")
        var meta: [String: String] = [:]
        while try statement.step() {
            meta[statement.text(0)] = statement.text(1)
        }
        return meta
    }
}
