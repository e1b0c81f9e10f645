/// The on-disk bundle format: names, versions and the index schema.
///
/// This is a public contract, documented in `docs/bundle-format.md`. A bundle is a directory
/// `<Name>.warmcache/` holding `index.sqlite` and `objects/`. The writer creates the index and
/// stamps it with ``applicationID``; the reader checks that and the `meta` table's version.
///
/// Apps rarely need these names: ``CacheBundle`` resolves every path. They are public for tools
/// that handle bundle directories themselves (copying, serving or checking them).
///
/// Versioning: `format_major` changes on any change an older reader would misread
/// (renamed or retyped columns, changed key grammar or object layout); readers refuse a
/// major they do not know. `format_minor` grows on additive changes (new tables, new
/// nullable columns, new `meta` keys) that older readers can safely ignore.
public enum BundleFormat {
    /// The major version this library writes and the highest it reads.
    public static let majorVersion = 1
    /// The minor version this library writes.
    public static let minorVersion = 2
    /// `PRAGMA application_id` of every index: the ASCII bytes `WCch`.
    public static let applicationID: Int32 = 0x5743_6368

    /// The extension of a bundle directory, without the dot: a bundle is `<Name>.warmcache/`.
    public static let directoryExtension = "warmcache"
    /// The index inside a bundle directory: an SQLite database of sources, variants, presets and
    /// placeholders, which the reader opens read-only and `immutable`.
    public static let indexFileName = "index.sqlite"
    /// The folder of blobs inside a bundle directory; see ``objectPath(sha256:format:)`` for where
    /// each blob sits in it.
    public static let objectsDirectoryName = "objects"
    /// The publisher's signed statement beside the index (which index, its version, its expiry).
    /// Readers ignore it; the `WarmCacheUpdates` library writes and checks it
    /// (docs/bundle-format.md, "The signed statement").
    public static let statementFileName = "statement.json"

    /// The path of a blob inside the bundle, relative to the bundle directory:
    /// `objects/<first two hex digits>/<sha256 hex>.<extension>`.
    public static func objectPath(sha256 hex: String, format: ImageFormat) -> String {
        "\(objectsDirectoryName)/\(hex.prefix(2))/\(hex).\(format.fileExtension)"
    }

    /// `meta` keys.
    package enum MetaKey {
        package static let formatMajor = "format_major"
        package static let formatMinor = "format_minor"
        package static let generator = "generator"
        package static let createdAt = "created_at"
        package static let sourceCount = "source_count"
        package static let variantCount = "variant_count"
        package static let manifestFingerprint = "manifest_fingerprint"
        package static let shard = "shard"
    }
}
