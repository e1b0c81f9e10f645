/// One row of `variants`, as much of it as selection needs.
struct VariantRecord: Sendable, Hashable {
    let cacheKey: String
    let fit: FitMode.Kind
    let format: ImageFormat
    let processors: String
    let pixelSize: PixelSize
    let byteCount: Int
    let sha256: String
    let hasAlpha: Bool

    /// Columns in the order ``init(statement:)`` reads them.
    static let columns = "v.cache_key, v.fit, v.format, v.processors, v.pixel_width, v.pixel_height, "
        + "v.byte_count, v.blob_sha256, v.has_alpha"

    /// Reads a row selected with ``columns``; `nil` for a row with a format or fit this reader does not know.
    init?(statement: SQLiteStatement) {
        guard let fit = FitMode.Kind(rawValue: statement.text(1)),
              let format = ImageFormat(rawValue: statement.text(2)) else { return nil }
        self.init(cacheKey: statement.text(0), fit: fit, format: format, processors: statement.text(3),
                  pixelSize: PixelSize(width: statement.int(4), height: statement.int(5)),
                  byteCount: statement.int(6), sha256: statement.text(7), hasAlpha: statement.int(8) != 0)
    }

    init(cacheKey: String, fit: FitMode.Kind, format: ImageFormat, processors: String, pixelSize: PixelSize,
         byteCount: Int, sha256: String, hasAlpha: Bool) {
        self.cacheKey = cacheKey
        self.fit = fit
        self.format = format
        self.processors = processors
        self.pixelSize = pixelSize
        self.byteCount = byteCount
        self.sha256 = sha256
        self.hasAlpha = hasAlpha
    }
}
