/// What best-fit selection compares: the facts of a variant other than its key and hash.
package protocol VariantFacts {
    var fit: FitMode.Kind { get }
    var format: ImageFormat { get }
    var pixelSize: PixelSize { get }
    var byteCount: Int { get }
    /// How many processors the variant applies (0 for none).
    var processorCount: Int { get }
}

/// The facts of a variant with its `processors` column as text.
package protocol VariantRow: VariantFacts {
    /// The `processors` column: `-`, or tokens joined by `,`.
    var processors: String { get }
}

extension VariantRow {
    package var processorCount: Int { Self.processorCount(of: processors) }

    /// How many processors a `processors` value names (0 for `-`).
    package static func processorCount(of processors: String) -> Int {
        processors == "-" ? 0 : processors.utf8.reduce(1) { $1 == UInt8(ascii: ",") ? $0 + 1 : $0 }
    }
}

/// A checked `variants` row without its key and hash (still in SQLite's buffers): what a lookup
/// reads from every row before it copies out the winner.
package struct VariantFields: VariantRow, Sendable {
    package let sourceID: Int
    package let fit: FitMode.Kind
    package let format: ImageFormat
    package let processors: String
    package let pixelSize: PixelSize
    package let byteCount: Int
    package let hasAlpha: Bool
}

/// One checked row of `variants`: as much of it as selection and answers need.
///
/// Built only by ``IndexValidation/decodeVariant(_:)``, so its hash is a valid blob name and its
/// sizes are sane.
package struct VariantRecord: VariantRow, Sendable, Hashable {
    package let cacheKey: String
    package let fit: FitMode.Kind
    package let format: ImageFormat
    /// The `processors` column: `-`, or tokens joined by `,`.
    package let processors: String
    package let pixelSize: PixelSize
    package let byteCount: Int
    package let sha256: String
    package let hasAlpha: Bool

    package init(cacheKey: String, fit: FitMode.Kind, format: ImageFormat, processors: String, pixelSize: PixelSize,
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

    /// The blob's path relative to the bundle.
    package var objectPath: String {
        BundleFormat.objectPath(sha256: sha256, format: format)
    }
}
