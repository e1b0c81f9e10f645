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

    /// The schema of `index.sqlite`, format 1.2, as executed by the writer. Format 1.2 added
    /// `quality_target` (the key's SSIMULACRA2 target), `encoder_quality` (the encoder quality a
    /// variant with a target was encoded at) and `quality_score` (the score that encoding reached).
    package static let schema: [String] = [
        """
        CREATE TABLE meta (
            key   TEXT PRIMARY KEY NOT NULL,
            value TEXT NOT NULL
        ) WITHOUT ROWID
        """,
        """
        CREATE TABLE sources (
            id             INTEGER PRIMARY KEY,
            source         TEXT NOT NULL UNIQUE,
            content_sha256 TEXT NOT NULL,
            format         TEXT NOT NULL,
            pixel_width    INTEGER NOT NULL,
            pixel_height   INTEGER NOT NULL,
            byte_count     INTEGER NOT NULL
        )
        """,
        """
        CREATE TABLE variants (
            cache_key    TEXT PRIMARY KEY NOT NULL,
            source_id    INTEGER NOT NULL REFERENCES sources(id),
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
            has_alpha    INTEGER NOT NULL,
            quality_target  INTEGER,
            encoder_quality INTEGER,
            quality_score   REAL
        ) WITHOUT ROWID
        """,
        "CREATE INDEX variants_by_source ON variants (source_id, format)",
        """
        CREATE TABLE variant_presets (
            preset    TEXT NOT NULL,
            cache_key TEXT NOT NULL REFERENCES variants(cache_key),
            PRIMARY KEY (preset, cache_key)
        ) WITHOUT ROWID
        """,
        """
        CREATE TABLE placeholders (
            source_id     INTEGER PRIMARY KEY REFERENCES sources(id),
            thumbhash     BLOB,
            blurhash      TEXT,
            average_color TEXT
        )
        """,
    ]
}
