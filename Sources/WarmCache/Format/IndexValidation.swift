/// The one place that decides whether a value read from an index may be used.
///
/// An index is untrusted input: bundles are downloaded, copied and edited. Every value the
/// runtime turns into a decision or a file path passes through here first, and the rules are
/// the ones `docs/bundle-format.md` states ("Reading an index as untrusted input"):
///
/// - a blob hash is exactly 64 lowercase hex digits (so a blob path can never leave `objects/`);
/// - pixel sides are integers in `1...maximumPixelSide`, byte counts in `1...maximumBlobBytes`;
/// - `has_alpha` is 0 or 1; text columns hold TEXT and integer columns INTEGER (no NULLs, no REALs);
/// - a `fit` or `format` this reader does not know makes the row unknown, and it is skipped;
/// - a variant belongs to its source only if its `cache_key` starts with the source's escaped
///   identifier and `|` (what ``VariantKey`` writes) and its `source_id` is that source's `id`.
///
/// Rows that break a rule are skipped by lookups; ``problems(in:)`` lists them all.
package enum IndexValidation {
    /// The largest pixel side a variant may claim (far beyond any encoder's limit).
    package static let maximumPixelSide = 1 << 20
    /// The largest blob a variant may claim: 4 GiB.
    package static let maximumBlobBytes = 1 << 32
    /// The longest cache key a reader accepts.
    package static let maximumKeyBytes = 1 << 16

    /// Whether `text` is a blob hash: exactly 64 lowercase hex digits.
    package static func isBlobHash(_ text: String) -> Bool {
        var text = text
        return text.withUTF8 { isBlobHash($0) }
    }

    package static func isBlobHash(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard bytes.count == 64 else { return false }
        for byte in bytes {
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "a")...UInt8(ascii: "f"): continue
            default: return false
            }
        }
        return true
    }

    /// The blob path of a hash, relative to the bundle, or `nil` when the hash is not one.
    package static func objectPath(sha256: String, format: ImageFormat) -> String? {
        isBlobHash(sha256) ? BundleFormat.objectPath(sha256: sha256, format: format) : nil
    }

    // MARK: Variant rows

    /// The `variants` columns ``decodeVariant(_:)`` reads, in its order.
    package static let variantColumns = "v.cache_key, v.source_id, v.fit, v.format, v.processors, v.pixel_width, "
        + "v.pixel_height, v.byte_count, v.blob_sha256, v.has_alpha"

    /// A `variants` row read with ``variantColumns``, checked; `sourceID` is the row's `source_id`.
    package static func decodeVariant(_ row: SQLiteStatement) -> Result<(record: VariantRecord, sourceID: Int), IndexProblem> {
        decodeFields(row).map { (record(row, $0), $0.sourceID) }
    }

    /// Every rule of a `variants` row checked, without copying its key and hash out of SQLite:
    /// lookups decide on these and make a ``VariantRecord`` (``record(_:_:)``) only for a winner.
    package static func decodeFields(_ row: SQLiteStatement) -> Result<VariantFields, IndexProblem> {
        guard let keyBytes = row.textBytes(0), !keyBytes.isEmpty, keyBytes.count <= maximumKeyBytes else {
            return .failure(problem(row, .wrongType, "cache_key", "must be non-empty TEXT of at most "
                                    + "\(maximumKeyBytes) bytes, found \(describe(row, 0))"))
        }
        guard let sourceID = row.strictInt(1) else {
            return .failure(problem(row, .wrongType, "source_id", "must be an INTEGER, found \(describe(row, 1))"))
        }
        guard let fitText = row.textBytes(2).map(string), let formatText = row.textBytes(3).map(string) else {
            let column: Int32 = row.textBytes(2) == nil ? 2 : 3
            return .failure(problem(row, .wrongType, column == 2 ? "fit" : "format",
                                    "must be TEXT, found \(describe(row, column))"))
        }
        guard let fit = FitMode.Kind(rawValue: fitText) else {
            return .failure(problem(row, .unknownValue, "fit", "'\(clip(fitText))' is not a fit this reader knows"))
        }
        guard let format = ImageFormat(rawValue: formatText) else {
            return .failure(problem(row, .unknownValue, "format",
                                    "'\(clip(formatText))' is not a format this reader knows"))
        }
        guard let processorBytes = row.textBytes(4), !processorBytes.isEmpty,
              !processorBytes.contains(UInt8(ascii: "|")) else {
            return .failure(problem(row, .invalidValue, "processors",
                                    "must be '-' or processor tokens, found \(describe(row, 4))"))
        }
        guard let width = row.strictInt(5), (1...maximumPixelSide).contains(width) else {
            return .failure(problem(row, .invalidValue, "pixel_width", "must be an INTEGER in 1...\(maximumPixelSide), "
                                    + "found \(describe(row, 5))"))
        }
        guard let height = row.strictInt(6), (1...maximumPixelSide).contains(height) else {
            return .failure(problem(row, .invalidValue, "pixel_height", "must be an INTEGER in 1...\(maximumPixelSide), "
                                    + "found \(describe(row, 6))"))
        }
        guard let byteCount = row.strictInt(7), (1...maximumBlobBytes).contains(byteCount) else {
            return .failure(problem(row, .invalidValue, "byte_count",
                                    "must be an INTEGER in 1...\(maximumBlobBytes), found \(describe(row, 7))"))
        }
        guard let hashBytes = row.textBytes(8), isBlobHash(hashBytes) else {
            return .failure(problem(row, .invalidValue, "blob_sha256",
                                    "must be 64 lowercase hex digits, found \(describe(row, 8))"))
        }
        guard let alpha = row.strictInt(9), alpha == 0 || alpha == 1 else {
            return .failure(problem(row, .invalidValue, "has_alpha", "must be 0 or 1, found \(describe(row, 9))"))
        }
        return .success(VariantFields(
            sourceID: sourceID, fit: fit, format: format, processors: string(processorBytes),
            pixelSize: PixelSize(width: width, height: height), byteCount: byteCount, hasAlpha: alpha == 1))
    }

    /// The record of the row `fields` were decoded from (the statement still on that row).
    package static func record(_ row: SQLiteStatement, _ fields: VariantFields) -> VariantRecord {
        VariantRecord(cacheKey: row.textBytes(0).map(string) ?? "", fit: fields.fit, format: fields.format,
                      processors: fields.processors, pixelSize: fields.pixelSize, byteCount: fields.byteCount,
                      sha256: row.textBytes(8).map(string) ?? "", hasAlpha: fields.hasAlpha)
    }

    /// The prefix every `cache_key` of `source` starts with: the escaped identifier and `|`.
    package static func keyPrefix(of source: SourceIdentifier) -> String {
        VariantKey.escape(source.rawValue) + "|"
    }

    // MARK: Whole index

    /// Every problem of an index, table by table. Reads every row: for `verify` and updaters, not lookups.
    package static func problems(in connection: SQLiteConnection) throws -> [IndexProblem] {
        var problems: [IndexProblem] = []
        let required: [(String, [String])] = [
            ("meta", ["key", "value"]),
            ("sources", ["id", "source", "content_sha256", "format", "pixel_width", "pixel_height", "byte_count"]),
            ("variants", ["cache_key", "source_id", "width_pt", "height_pt", "scale", "fit", "gravity", "background",
                          "upscale", "format", "quality", "options", "processors", "pixel_width", "pixel_height",
                          "byte_count", "blob_sha256", "has_alpha"]),
            ("variant_presets", ["preset", "cache_key"]),
            ("placeholders", ["source_id", "thumbhash", "blurhash", "average_color"]),
        ]
        for (table, columns) in required {
            let info = try connection.statement("SELECT name FROM pragma_table_info(?)")
            try info.bind(.text(table))
            var present = Set<String>()
            while try info.step() { present.insert(info.text(0)) }
            if present.isEmpty {
                problems.append(IndexProblem(.missingSchema, table: table, row: "-", column: "",
                                             detail: "the table is missing"))
                continue
            }
            for column in columns where !present.contains(column) {
                problems.append(IndexProblem(.missingSchema, table: table, row: "-", column: column,
                                             detail: "the column is missing"))
            }
        }
        guard problems.isEmpty else { return problems }

        var sources: [Int: String] = [:]
        let sourceRows = try connection.statement(
            "SELECT id, source, content_sha256, pixel_width, pixel_height, byte_count FROM sources")
        var ordinal = 0
        while try sourceRows.step() {
            ordinal += 1
            guard let id = sourceRows.strictInt(0), let source = sourceRows.textBytes(1).map(string), !source.isEmpty
            else {
                problems.append(IndexProblem(.wrongType, table: "sources", row: "#\(ordinal)", column: "source",
                                             detail: "id must be an INTEGER and source non-empty TEXT"))
                continue
            }
            sources[id] = source
            if !(sourceRows.textBytes(2).map(isBlobHash) ?? false) {
                problems.append(IndexProblem(.invalidValue, table: "sources", row: clip(source),
                                             column: "content_sha256", detail: "must be 64 lowercase hex digits"))
            }
            for (column, name) in [(Int32(3), "pixel_width"), (4, "pixel_height"), (5, "byte_count")] {
                if !(sourceRows.strictInt(column).map { $0 >= 0 } ?? false) {
                    problems.append(IndexProblem(.invalidValue, table: "sources", row: clip(source), column: name,
                                                 detail: "must be a non-negative INTEGER, found "
                                                     + describe(sourceRows, column)))
                }
            }
        }

        let variantRows = try connection.statement("SELECT \(variantColumns) FROM variants v")
        while try variantRows.step() {
            switch decodeVariant(variantRows) {
            case .failure(let problem):
                problems.append(problem)
            case .success(let (record, sourceID)):
                guard let source = sources[sourceID] else {
                    problems.append(IndexProblem(.danglingReference, table: "variants", row: clip(record.cacheKey),
                                                 column: "source_id", detail: "no source has id \(sourceID)"))
                    continue
                }
                if !record.cacheKey.utf8.starts(with: keyPrefix(of: SourceIdentifier(verbatim: source)).utf8) {
                    problems.append(IndexProblem(.invalidValue, table: "variants", row: clip(record.cacheKey),
                                                 column: "cache_key", detail: "does not start with its source "
                                                     + "'\(clip(source))' followed by '|'"))
                }
            }
        }

        let presetRows = try connection.statement("""
            SELECT p.preset, p.cache_key, v.cache_key IS NOT NULL FROM variant_presets p
            LEFT JOIN variants v ON v.cache_key = p.cache_key
            """)
        while try presetRows.step() {
            let key = presetRows.textBytes(1).map(string) ?? describe(presetRows, 1)
            if presetRows.textBytes(0) == nil {
                problems.append(IndexProblem(.wrongType, table: "variant_presets", row: clip(key), column: "preset",
                                             detail: "must be TEXT, found \(describe(presetRows, 0))"))
            } else if presetRows.int(2) == 0 {
                problems.append(IndexProblem(.danglingReference, table: "variant_presets", row: clip(key),
                                             column: "cache_key", detail: "no variant has this key"))
            }
        }
        return problems
    }

    // MARK: Helpers

    private static func string(_ bytes: UnsafeBufferPointer<UInt8>) -> String {
        String(decoding: bytes, as: UTF8.self)
    }

    /// A short, printable rendering of a column's value for a message.
    private static func describe(_ row: SQLiteStatement, _ column: Int32) -> String {
        switch row.storage(column) {
        case .null: return "NULL"
        case .integer: return "INTEGER \(row.int(column))"
        case .real: return "REAL"
        case .blob: return "a BLOB"
        case .text: return "TEXT '\(clip(row.text(column)))'"
        }
    }

    private static func problem(_ row: SQLiteStatement, _ kind: IndexProblem.Kind, _ column: String,
                                _ detail: String) -> IndexProblem {
        let key = row.textBytes(0).map { clip(string($0)) } ?? "(no cache_key)"
        return IndexProblem(kind, table: "variants", row: key, column: column, detail: detail)
    }

    /// At most 120 characters, control characters shown as `?`, for messages.
    static func clip(_ text: String) -> String {
        let shown = String(text.unicodeScalars.prefix(120).map { $0.value < 0x20 || $0.value == 0x7f ? "?" : Character($0) })
        return text.unicodeScalars.count > 120 ? shown + "…" : shown
    }
}
