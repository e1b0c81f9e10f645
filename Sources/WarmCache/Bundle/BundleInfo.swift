/// What a bundle says about itself in its `meta` table.
public struct BundleInfo: Sendable, Hashable {
    public let formatMajor: Int
    public let formatMinor: Int
    /// The tool that wrote the bundle, e.g. `warm-cache 0.1.0`.
    public let generator: String
    public let sourceCount: Int
    public let variantCount: Int
}
