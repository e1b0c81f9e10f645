import WarmCache

/// One variant as reports and listings show it: a ``SourceReport``'s variants, and the variants
/// `warm-cache inspect` lists from a bundle's index. One shape for both, so a script reads a
/// run's report and a bundle's listing alike.
public struct VariantReport: Sendable, Codable, Equatable {
    public enum Action: String, Sendable, Codable {
        /// Decoded and encoded in this run.
        case encoded
        /// Taken from an earlier run: same original bytes, same specs, same engine.
        case reused
    }

    public var cacheKey: String
    /// Presets that asked for this variant (sorted in a listing).
    public var presets: [String]
    public var format: String
    public var pixelWidth: Int
    public var pixelHeight: Int
    public var bytes: Int
    /// The blob's path inside the bundle (`objects/<xx>/<sha256>.<ext>`).
    public var blob: String
    /// What the run did for this variant; `nil` in a listing of a bundle, where no run is involved.
    public var action: Action?
    /// For a variant with a quality target (`quality: auto`): the SSIMULACRA2 score it had to reach,
    /// the encoder quality found and the score that encoding reached. `nil` otherwise.
    public var qualityTarget: Int?
    public var encoderQuality: Int?
    public var qualityScore: Double?
}

extension VariantReport {
    /// The report line of one variant's index row.
    init(_ variant: BundleContents.Variant, action: Action) {
        self.init(cacheKey: variant.key.rawValue, presets: variant.presets,
                  format: variant.key.spec.format.rawValue,
                  pixelWidth: variant.pixelSize.width, pixelHeight: variant.pixelSize.height,
                  bytes: variant.byteCount,
                  blob: BundleFormat.objectPath(sha256: variant.blobSHA256, format: variant.key.spec.format),
                  action: action, qualityTarget: variant.key.spec.qualityTarget,
                  encoderQuality: variant.perceptual?.quality, qualityScore: variant.perceptual?.score)
    }

    private typealias V = IndexSchema.Variants
    private typealias P = IndexSchema.VariantPresets

    /// The columns ``init(row:)`` reads, for a query over `variants v`: the variant's own and its
    /// presets, joined by commas, as `presets`.
    static let columns = """
        v.\(V.cacheKey), v.\(V.format), v.\(V.pixelWidth), v.\(V.pixelHeight), v.\(V.byteCount), v.\(V.blobSHA256),
        (SELECT group_concat(\(P.preset), ',') FROM
            (SELECT \(P.preset) FROM \(P.table) p WHERE p.\(P.cacheKey) = v.\(V.cacheKey) ORDER BY \(P.preset))) AS presets,
        v.\(V.qualityTarget), v.\(V.encoderQuality), v.\(V.qualityScore)
        """

    /// A listing's line for the row of a statement selecting ``columns``.
    init(row: SQLiteStatement) {
        let format = row.text(V.format)
        let sha256 = row.text(V.blobSHA256)
        self.init(cacheKey: row.text(V.cacheKey), presets: row.optionalText("presets").map {
                      $0.split(separator: ",").map(String.init) } ?? [],
                  format: format, pixelWidth: row.int(V.pixelWidth), pixelHeight: row.int(V.pixelHeight),
                  bytes: row.int(V.byteCount),
                  blob: ImageFormat(rawValue: format).map { BundleFormat.objectPath(sha256: sha256, format: $0) }
                      ?? "objects/\(sha256.prefix(2))/\(sha256).\(format)",
                  action: nil, qualityTarget: row.optionalInt(V.qualityTarget),
                  encoderQuality: row.optionalInt(V.encoderQuality), qualityScore: row.optionalDouble(V.qualityScore))
    }
}
