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

    /// The distinct blobs of an index's variant rows that pass the runtime's ``IndexValidation``
    /// (rows it rejects, e.g. of a format this library does not know, are skipped as lookups skip them;
    /// the updater refuses an index with any other problem before it gets here).
    static func referenced(in connection: SQLiteConnection) throws -> [BlobReference] {
        let statement = try connection.statement(
            "SELECT \(IndexValidation.variantColumns) FROM \(IndexSchema.Variants.table) v")
        let columns = statement.columns(VariantColumns.self)
        var blobs: [String: BlobReference] = [:]
        while try statement.step() {
            guard case .success(let row) = IndexValidation.decodeVariant(statement, columns) else { continue }
            blobs[row.record.sha256] = BlobReference(sha256: row.record.sha256, format: row.record.format,
                                                     byteCount: row.record.byteCount)
        }
        return blobs.values.sorted { $0.sha256 < $1.sha256 }
    }
}
