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
    /// 4 GiB; `Int.max` where `Int` has 32 bits (watchOS), which holds no larger file anyway.
    package static let maximumBlobBytes = Int(clamping: Int64(1) << 32)
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

    /// The `variants` columns ``decodeFields(_:_:)`` reads, to select from `variants v`. Rows are
    /// read by name, so the order does not matter.
    package static let variantColumns = VariantColumns.names.map { "v.\($0)" }.joined(separator: ", ")

    /// A `variants` row read with ``variantColumns``, checked; `sourceID` is the row's `source_id`.
    package static func decodeVariant(_ row: SQLiteStatement, _ columns: VariantColumns)
        -> Result<(record: VariantRecord, sourceID: Int), IndexProblem> {
        decodeFields(row, columns).map { (record(row, columns, $0), $0.sourceID) }
    }

    /// Every rule of a `variants` row checked, without copying its key and hash out of SQLite:
    /// lookups decide on these and make a ``VariantRecord`` (``record(_:_:_:)``) only for a winner.
    package static func decodeFields(_ row: SQLiteStatement, _ columns: VariantColumns)
        -> Result<VariantFields, IndexProblem> {
        typealias V = IndexSchema.Variants
        func problem(_ kind: IndexProblem.Kind, _ column: IndexColumn, _ detail: String) -> IndexProblem {
            let key = row.textBytes(columns.cacheKey).map { clip(string($0)) } ?? "(no cache_key)"
            return IndexProblem(kind, table: V.table.name, row: key, column: column.name, detail: detail)
        }
        guard let keyBytes = row.textBytes(columns.cacheKey), !keyBytes.isEmpty, keyBytes.count <= maximumKeyBytes else {
            return .failure(problem(.wrongType, V.cacheKey, "must be non-empty TEXT of at most "
                                    + "\(maximumKeyBytes) bytes, found \(describe(row, columns.cacheKey))"))
        }
        guard let sourceID = row.strictInt(columns.sourceID) else {
            return .failure(problem(.wrongType, V.sourceID, "must be an INTEGER, found \(describe(row, columns.sourceID))"))
        }
        guard let fitText = row.textBytes(columns.fit).map(string) else {
            return .failure(problem(.wrongType, V.fit, "must be TEXT, found \(describe(row, columns.fit))"))
        }
        guard let formatText = row.textBytes(columns.format).map(string) else {
            return .failure(problem(.wrongType, V.format, "must be TEXT, found \(describe(row, columns.format))"))
        }
        guard let fit = FitMode.Kind(rawValue: fitText) else {
            return .failure(problem(.unknownValue, V.fit, "'\(clip(fitText))' is not a fit this reader knows"))
        }
        guard let format = ImageFormat(rawValue: formatText) else {
            return .failure(problem(.unknownValue, V.format, "'\(clip(formatText))' is not a format this reader knows"))
        }
        guard let processorBytes = row.textBytes(columns.processors), !processorBytes.isEmpty,
              !processorBytes.contains(UInt8(ascii: "|")) else {
            return .failure(problem(.invalidValue, V.processors,
                                    "must be '-' or processor tokens, found \(describe(row, columns.processors))"))
        }
        guard let width = row.strictInt(columns.pixelWidth), (1...maximumPixelSide).contains(width) else {
            return .failure(problem(.invalidValue, V.pixelWidth, "must be an INTEGER in 1...\(maximumPixelSide), "
                                    + "found \(describe(row, columns.pixelWidth))"))
        }
        guard let height = row.strictInt(columns.pixelHeight), (1...maximumPixelSide).contains(height) else {
            return .failure(problem(.invalidValue, V.pixelHeight, "must be an INTEGER in 1...\(maximumPixelSide), "
                                    + "found \(describe(row, columns.pixelHeight))"))
        }
        guard let byteCount = row.strictInt(columns.byteCount), (1...maximumBlobBytes).contains(byteCount) else {
            return .failure(problem(.invalidValue, V.byteCount,
                                    "must be an INTEGER in 1...\(maximumBlobBytes), found \(describe(row, columns.byteCount))"))
        }
        guard let hashBytes = row.textBytes(columns.blobSHA256), isBlobHash(hashBytes) else {
            return .failure(problem(.invalidValue, V.blobSHA256,
                                    "must be 64 lowercase hex digits, found \(describe(row, columns.blobSHA256))"))
        }
        guard let alpha = row.strictInt(columns.hasAlpha), alpha == 0 || alpha == 1 else {
            return .failure(problem(.invalidValue, V.hasAlpha, "must be 0 or 1, found \(describe(row, columns.hasAlpha))"))
        }
        return .success(VariantFields(
            sourceID: sourceID, fit: fit, format: format, processors: string(processorBytes),
            pixelSize: PixelSize(width: width, height: height), byteCount: byteCount, hasAlpha: alpha == 1))
    }

    /// The record of the row `fields` were decoded from (the statement still on that row).
    package static func record(_ row: SQLiteStatement, _ columns: VariantColumns, _ fields: VariantFields) -> VariantRecord {
        VariantRecord(cacheKey: row.textBytes(columns.cacheKey).map(string) ?? "", fit: fields.fit,
                      format: fields.format, processors: fields.processors, pixelSize: fields.pixelSize,
                      byteCount: fields.byteCount, sha256: row.textBytes(columns.blobSHA256).map(string) ?? "",
                      hasAlpha: fields.hasAlpha)
    }

    /// The prefix every `cache_key` of `source` starts with: the escaped identifier and `|`.
    package static func keyPrefix(of source: SourceIdentifier) -> String {
        VariantKey.escape(source.rawValue) + "|"
    }

    // MARK: Whole index

    /// Every problem of an index, table by table. Reads every row: for `verify` and updaters, not lookups.
    package static func problems(in connection: SQLiteConnection) throws -> [IndexProblem] {
        typealias S = IndexSchema.Sources
        typealias V = IndexSchema.Variants
        typealias P = IndexSchema.VariantPresets
        var problems: [IndexProblem] = []
        for table in IndexSchema.tables {
            let info = try connection.statement("SELECT name FROM pragma_table_info(?)")
            try info.bind(.text(table.name))
            var present = Set<String>()
            while try info.step() { present.insert(info.text("name")) }
            if present.isEmpty {
                problems.append(IndexProblem(.missingSchema, table: table.name, row: "-", column: "",
                                             detail: "the table is missing"))
                continue
            }
            for column in table.requiredColumns where !present.contains(column.name) {
                problems.append(IndexProblem(.missingSchema, table: table.name, row: "-", column: column.name,
                                             detail: "the column is missing"))
            }
        }
        guard problems.isEmpty else { return problems }

        var sources: [Int: String] = [:]
        let sourceRows = try connection.statement("""
            SELECT \(S.id), \(S.source), \(S.contentSHA256), \(S.pixelWidth), \(S.pixelHeight), \(S.byteCount) \
            FROM \(S.table)
            """)
        var ordinal = 0
        while try sourceRows.step() {
            ordinal += 1
            guard let id = sourceRows.strictInt(S.id), let source = sourceRows.textBytes(S.source).map(string),
                  !source.isEmpty else {
                problems.append(IndexProblem(.wrongType, table: S.table.name, row: "#\(ordinal)", column: S.source.name,
                                             detail: "id must be an INTEGER and source non-empty TEXT"))
                continue
            }
            sources[id] = source
            if !(sourceRows.textBytes(S.contentSHA256).map(isBlobHash) ?? false) {
                problems.append(IndexProblem(.invalidValue, table: S.table.name, row: clip(source),
                                             column: S.contentSHA256.name, detail: "must be 64 lowercase hex digits"))
            }
            for column in [S.pixelWidth, S.pixelHeight, S.byteCount] {
                if !(sourceRows.strictInt(column).map { $0 >= 0 } ?? false) {
                    problems.append(IndexProblem(.invalidValue, table: S.table.name, row: clip(source),
                                                 column: column.name, detail: "must be a non-negative INTEGER, found "
                                                     + describe(sourceRows, column)))
                }
            }
        }

        let variantRows = try connection.statement("SELECT \(variantColumns) FROM \(V.table) v")
        let columns = variantRows.columns(VariantColumns.self)
        while try variantRows.step() {
            switch decodeVariant(variantRows, columns) {
            case .failure(let problem):
                problems.append(problem)
            case .success(let (record, sourceID)):
                guard let source = sources[sourceID] else {
                    problems.append(IndexProblem(.danglingReference, table: V.table.name, row: clip(record.cacheKey),
                                                 column: V.sourceID.name, detail: "no source has id \(sourceID)"))
                    continue
                }
                if !record.cacheKey.utf8.starts(with: keyPrefix(of: SourceIdentifier(verbatim: source)).utf8) {
                    problems.append(IndexProblem(.invalidValue, table: V.table.name, row: clip(record.cacheKey),
                                                 column: V.cacheKey.name, detail: "does not start with its source "
                                                     + "'\(clip(source))' followed by '|'"))
                }
            }
        }

        let presetRows = try connection.statement("""
            SELECT p.\(P.preset), p.\(P.cacheKey), v.\(V.cacheKey) IS NOT NULL AS listed FROM \(P.table) p
            LEFT JOIN \(V.table) v ON v.\(V.cacheKey) = p.\(P.cacheKey)
            """)
        while try presetRows.step() {
            let key = presetRows.textBytes(P.cacheKey).map(string) ?? describe(presetRows, P.cacheKey)
            if presetRows.textBytes(P.preset) == nil {
                problems.append(IndexProblem(.wrongType, table: P.table.name, row: clip(key), column: P.preset.name,
                                             detail: "must be TEXT, found \(describe(presetRows, P.preset))"))
            } else if presetRows.int("listed") == 0 {
                problems.append(IndexProblem(.danglingReference, table: P.table.name, row: clip(key),
                                             column: P.cacheKey.name, detail: "no variant has this key"))
            }
        }
        return problems
    }

    // MARK: Helpers

    private static func string(_ bytes: UnsafeBufferPointer<UInt8>) -> String {
        String(decoding: bytes, as: UTF8.self)
    }

    /// A short, printable rendering of a column's value for a message.
    private static func describe(_ row: SQLiteStatement, _ column: some SQLiteColumnReference) -> String {
        switch row.storage(column) {
        case .null: return "NULL"
        case .integer: return "INTEGER \(row.int(column))"
        case .real: return "REAL"
        case .blob: return "a BLOB"
        case .text: return "TEXT '\(clip(row.text(column)))'"
        }
    }

    /// At most 120 characters, control characters shown as `?`, for messages.
    static func clip(_ text: String) -> String {
        let shown = String(text.unicodeScalars.prefix(120).map { $0.value < 0x20 || $0.value == 0x7f ? "?" : Character($0) })
        return text.unicodeScalars.count > 120 ? shown + "…" : shown
    }
}

/// The `variants` columns a checked read needs (``IndexValidation/decodeFields(_:_:)``), each found
/// by name once per statement: `statement.columns(VariantColumns.self)` before the loop over its rows.
package struct VariantColumns: SQLiteColumnSet {
    /// The columns, as a query selects them (``IndexValidation/variantColumns``).
    static let names: [IndexColumn] = {
        typealias V = IndexSchema.Variants
        return [V.cacheKey, V.sourceID, V.fit, V.format, V.processors, V.pixelWidth, V.pixelHeight, V.byteCount,
                V.blobSHA256, V.hasAlpha]
    }()

    package let cacheKey, sourceID, fit, format, processors, pixelWidth, pixelHeight, byteCount, blobSHA256,
        hasAlpha: SQLiteColumn

    package init(in statement: SQLiteStatement) {
        typealias V = IndexSchema.Variants
        cacheKey = statement.column(V.cacheKey)
        sourceID = statement.column(V.sourceID)
        fit = statement.column(V.fit)
        format = statement.column(V.format)
        processors = statement.column(V.processors)
        pixelWidth = statement.column(V.pixelWidth)
        pixelHeight = statement.column(V.pixelHeight)
        byteCount = statement.column(V.byteCount)
        blobSHA256 = statement.column(V.blobSHA256)
        hasAlpha = statement.column(V.hasAlpha)
    }
}
