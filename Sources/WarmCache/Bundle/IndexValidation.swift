/// The rules a value read from an untrusted index (a download, a copied file) must satisfy before
/// it names a file: the one place the runtime decides it.
///
/// - A blob hash is exactly 64 lowercase hex digits, so a blob path can never leave `objects/`
///   (no `/`, no `..`).
/// - A blob's byte count is between 1 and ``maximumBlobBytes``.
package enum IndexValidation {
    /// The largest blob a variant may claim: 4 GiB.
    package static let maximumBlobBytes = 1 << 32

    /// Whether `text` is a blob hash: exactly 64 lowercase hex digits.
    package static func isBlobHash(_ text: String) -> Bool {
        let utf8 = text.utf8
        return utf8.count == 64 && utf8.allSatisfy { (48...57).contains($0) || (97...102).contains($0) }
    }
}
