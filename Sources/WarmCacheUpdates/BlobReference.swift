import WarmCache

/// A blob an index references, as the updater downloads, verifies and keeps it.
struct BlobReference: Hashable, Sendable {
    let sha256: String
    let format: ImageFormat
    let byteCount: Int

    /// `objects/<xx>/<sha256>.<ext>`, relative to the bundle directory (and to the base URL).
    var relativePath: String {
        BundleFormat.objectPath(sha256: sha256, format: format)
    }

    /// `<sha256>.<ext>`, the file's name in its fan-out folder.
    var fileName: String {
        "\(sha256).\(format.fileExtension)"
    }

    /// The distinct blobs of an index, each checked with the runtime's ``IndexValidation`` rules
    /// (rows of formats this library does not know are skipped, as lookups skip them).
    /// - Throws: ``Problem`` naming the first offending row; `SQLiteError` if `variants` is unreadable.
    static func referenced(in connection: SQLiteConnection) throws -> [BlobReference] {
        let statement = try connection.statement("SELECT cache_key, blob_sha256, format, byte_count FROM variants")
        var blobs: [String: BlobReference] = [:]
        while try statement.step() {
            let key = String(statement.text(0).prefix(200))
            guard let format = ImageFormat(rawValue: statement.text(2)) else { continue }
            let sha256 = statement.text(1)
            let byteCount = statement.int(3)
            guard IndexValidation.isBlobHash(sha256) else {
                throw Problem(description: "variant \(key): blob_sha256 is not 64 lowercase hex digits")
            }
            guard (1...IndexValidation.maximumBlobBytes).contains(byteCount) else {
                throw Problem(description: "variant \(key): byte_count \(byteCount) is out of range")
            }
            let blob = BlobReference(sha256: sha256, format: format, byteCount: byteCount)
            if let known = blobs[sha256], known != blob {
                throw Problem(description: "variant \(key): blob \(sha256) is listed with two sizes or formats")
            }
            blobs[sha256] = blob
        }
        return blobs.values.sorted { $0.sha256 < $1.sha256 }
    }

    /// An index row that breaks the rules.
    struct Problem: Error, CustomStringConvertible {
        let description: String
    }
}
