import WarmCache

/// Per-format encoder defaults, used for every setting a ``VariantSpec`` leaves `nil`. The
/// built-in values are ``EncoderTable``'s (see `docs/imaging.md`).
public struct EncoderDefaults: Sendable, Hashable, Codable {
    /// Quality 1–100 per lossy format.
    public var quality: [ImageFormat: Int]
    /// Effort per format, in the format's own scale.
    public var effort: [ImageFormat: Int]
    /// Progressive JPEG / interlaced PNG and GIF.
    public var progressive: Bool

    public init(quality: [ImageFormat: Int] = EncoderDefaults.tableQuality,
                effort: [ImageFormat: Int] = EncoderDefaults.tableEffort,
                progressive: Bool = false) {
        self.quality = quality
        self.effort = effort
        self.progressive = progressive
    }

    /// The table's default quality of every lossy format (PNG's applies to palettes only, so it is left out).
    public static let tableQuality: [ImageFormat: Int] = Dictionary(uniqueKeysWithValues: EncoderTable.rows
        .filter { $0.format != .png }.compactMap { row in row.quality.map { (row.format, $0.default) } })
    /// The table's default effort of every format that has one.
    public static let tableEffort: [ImageFormat: Int] = Dictionary(uniqueKeysWithValues: EncoderTable.rows
        .compactMap { row in row.effort.map { (row.format, $0.default) } })
}
