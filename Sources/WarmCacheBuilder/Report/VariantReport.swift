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

    /// The columns ``init(row:at:)`` reads, for a query over `variants v`.
    static let columns = """
        v.cache_key, v.format, v.pixel_width, v.pixel_height, v.byte_count, v.blob_sha256,
        (SELECT group_concat(preset, ',') FROM
            (SELECT preset FROM variant_presets p WHERE p.cache_key = v.cache_key ORDER BY preset)),
        v.quality_target, v.encoder_quality, v.quality_score
        """

    /// A listing's line for the row of a statement selecting ``columns`` from column `first` on.
    init(row: SQLiteStatement, at first: Int32 = 0) {
        let format = row.text(first + 1)
        let sha256 = row.text(first + 5)
        self.init(cacheKey: row.text(first), presets: row.optionalText(first + 6).map {
                      $0.split(separator: ",").map(String.init) } ?? [],
                  format: format, pixelWidth: row.int(first + 2), pixelHeight: row.int(first + 3),
                  bytes: row.int(first + 4),
                  blob: ImageFormat(rawValue: format).map { BundleFormat.objectPath(sha256: sha256, format: $0) }
                      ?? "objects/\(sha256.prefix(2))/\(sha256).\(format)",
                  action: nil, qualityTarget: row.optionalInt(first + 7), encoderQuality: row.optionalInt(first + 8),
                  qualityScore: row.optionalDouble(first + 9))
    }
}
