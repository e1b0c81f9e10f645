/// The rules an index from an untrusted place (a download, a file someone handed over) must
/// satisfy before its values name files: the one place the runtime checks index rows.
///
/// - A blob hash is exactly 64 lowercase hex digits, so it can never form a path outside
///   `objects/` (no `/`, no `..`).
/// - A byte count is between 1 and ``maximumBlobByteCount``.
/// - A row whose format this reader does not know is skipped, as lookups skip it.
/// - Every row naming the same blob agrees on its size.
package enum IndexValidation {
    /// The largest blob size an index may claim (1 GiB): anything above is a corrupt or hostile row.
    package static let maximumBlobByteCount = 1 << 30

    /// Whether `text` is a blob name: exactly 64 lowercase hex digits.
    package static func isSHA256Hex(_ text: String) -> Bool {
        let utf8 = text.utf8
        return utf8.count == 64 && utf8.allSatisfy { (48...57).contains($0) || (97...102).contains($0) }
    }

    /// The distinct blobs the index references, each checked by the rules above.
    /// - Throws: ``IndexValidationError`` naming the first offending row; `SQLiteError` if the
    ///   `variants` table cannot be read.
    package static func referencedBlobs(in connection: SQLiteConnection) throws -> [BlobReference] {
        let statement = try connection.statement("SELECT cache_key, blob_sha256, format, byte_count FROM variants")
        var blobs: [String: BlobReference] = [:]
        while try statement.step() {
            let key = statement.text(0)
            let sha256 = statement.text(1)
            guard let format = ImageFormat(rawValue: statement.text(2)) else { continue }
            let byteCount = statement.int(3)
            guard isSHA256Hex(sha256) else {
                throw IndexValidationError(cacheKey: key, problem: "blob_sha256 is not 64 lowercase hex digits")
            }
            guard (1...maximumBlobByteCount).contains(byteCount) else {
                throw IndexValidationError(cacheKey: key, problem: "byte_count \(byteCount) is out of range")
            }
            let blob = BlobReference(sha256: sha256, format: format, byteCount: byteCount)
            if let known = blobs[sha256], known != blob {
                throw IndexValidationError(cacheKey: key, problem: "blob \(sha256) is listed with two sizes or formats")
            }
            blobs[sha256] = blob
        }
        return blobs.values.sorted { $0.sha256 < $1.sha256 }
    }
}

/// A blob an index references, validated by ``IndexValidation``.
package struct BlobReference: Hashable, Sendable {
    package let sha256: String
    package let format: ImageFormat
    package let byteCount: Int

    /// `objects/<xx>/<sha256>.<ext>`, relative to the bundle directory.
    package var relativePath: String {
        BundleFormat.objectPath(sha256: sha256, format: format)
    }

    /// `<sha256>.<ext>`, the file's name in its fan-out folder.
    package var fileName: String {
        "\(sha256).\(format.fileExtension)"
    }
}

/// An index row that breaks ``IndexValidation``'s rules.
package struct IndexValidationError: Error, CustomStringConvertible, Sendable {
    package let cacheKey: String
    package let problem: String

    package var description: String {
        "variant \(cacheKey.prefix(200)): \(problem)"
    }
}
