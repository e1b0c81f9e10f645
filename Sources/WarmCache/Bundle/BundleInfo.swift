/// What a bundle says about itself in its `meta` table.
public struct BundleInfo: Sendable, Hashable {
    /// The major format version of the index. A reader opens majors up to
    /// ``BundleFormat/majorVersion`` and refuses newer ones (``CacheBundleError/Kind/unsupportedVersion(found:supported:)``).
    public let formatMajor: Int
    /// The minor format version: additions (tables, columns, `meta` keys) that older readers ignore.
    public let formatMinor: Int
    /// The tool that wrote the bundle, e.g. `warm-cache 0.1.0`.
    public let generator: String
    /// The number of source images the writer stored, as recorded in the `meta` table.
    public let sourceCount: Int
    /// The number of variants (encoded images) the writer stored, as recorded in the `meta` table.
    public let variantCount: Int
}
