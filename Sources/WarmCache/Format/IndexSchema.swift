/// The tables of `index.sqlite`, each column named once, here, with the declaration that creates
/// it (docs/bundle-format.md says what each holds).
///
/// Queries build their SQL from these names and read rows by them, so a misspelt name does not
/// compile, and a column selected under another name stops the first test that reads it
/// (``SQLiteStatement``):
///
/// ```swift
/// typealias Sources = IndexSchema.Sources
/// let rows = try connection.statement("SELECT \(Sources.source), \(Sources.byteCount) FROM \(Sources.table)")
/// while try rows.step() {
///     print(rows.text(Sources.source), rows.int(Sources.byteCount))
/// }
/// ```
///
/// The `CREATE TABLE` statements (``BundleFormat/schema``) are made from the same declarations
/// (``IndexTable/create``). Their text is part of every index's bytes, since SQLite keeps it in
/// the file: a test pins it, character for character.
package enum IndexSchema {
    /// `meta`: facts about the index, one value per key (``BundleFormat/MetaKey``).
    package enum Meta {
        package static let key = IndexColumn("key", "TEXT PRIMARY KEY NOT NULL")
        package static let value = IndexColumn("value", "TEXT NOT NULL")
        package static let table = IndexTable("meta", [key, value], withoutRowID: true)
    }

    /// `sources`: one row per original image.
    package enum Sources {
        package static let id = IndexColumn("id", "INTEGER PRIMARY KEY")
        package static let source = IndexColumn("source", "TEXT NOT NULL UNIQUE")
        package static let contentSHA256 = IndexColumn("content_sha256", "TEXT NOT NULL")
        package static let format = IndexColumn("format", "TEXT NOT NULL")
        package static let pixelWidth = IndexColumn("pixel_width", "INTEGER NOT NULL")
        package static let pixelHeight = IndexColumn("pixel_height", "INTEGER NOT NULL")
        package static let byteCount = IndexColumn("byte_count", "INTEGER NOT NULL")
        package static let table = IndexTable(
            "sources", [id, source, contentSHA256, format, pixelWidth, pixelHeight, byteCount])
    }

    /// `variants`: one row per encoded variant, under its canonical key.
    package enum Variants {
        package static let cacheKey = IndexColumn("cache_key", "TEXT PRIMARY KEY NOT NULL")
        package static let sourceID = IndexColumn("source_id", "INTEGER NOT NULL REFERENCES \(Sources.table)(\(Sources.id))")
        package static let widthPt = IndexColumn("width_pt", "INTEGER")
        package static let heightPt = IndexColumn("height_pt", "INTEGER")
        package static let scale = IndexColumn("scale", "INTEGER NOT NULL")
        package static let fit = IndexColumn("fit", "TEXT NOT NULL")
        package static let gravity = IndexColumn("gravity", "TEXT")
        package static let background = IndexColumn("background", "TEXT")
        package static let upscale = IndexColumn("upscale", "INTEGER NOT NULL")
        package static let format = IndexColumn("format", "TEXT NOT NULL")
        package static let quality = IndexColumn("quality", "INTEGER")
        package static let options = IndexColumn("options", "TEXT NOT NULL")
        package static let processors = IndexColumn("processors", "TEXT NOT NULL")
        package static let pixelWidth = IndexColumn("pixel_width", "INTEGER NOT NULL")
        package static let pixelHeight = IndexColumn("pixel_height", "INTEGER NOT NULL")
        package static let byteCount = IndexColumn("byte_count", "INTEGER NOT NULL")
        package static let blobSHA256 = IndexColumn("blob_sha256", "TEXT NOT NULL")
        package static let hasAlpha = IndexColumn("has_alpha", "INTEGER NOT NULL")
        package static let qualityTarget = IndexColumn("quality_target", "INTEGER", since: 2)
        package static let encoderQuality = IndexColumn("encoder_quality", "INTEGER", since: 2)
        package static let qualityScore = IndexColumn("quality_score", "REAL", since: 2)
        package static let table = IndexTable("variants", [
            cacheKey, sourceID, widthPt, heightPt, scale, fit, gravity, background, upscale, format, quality, options,
            processors, pixelWidth, pixelHeight, byteCount, blobSHA256, hasAlpha, qualityTarget, encoderQuality,
            qualityScore,
        ], withoutRowID: true)
        /// The look-up index of a source's variants (by format).
        package static let bySource = "CREATE INDEX variants_by_source ON \(table) (\(sourceID), \(format))"
    }

    /// `variant_presets`: the presets that asked for each variant.
    package enum VariantPresets {
        package static let preset = IndexColumn("preset", "TEXT NOT NULL")
        package static let cacheKey = IndexColumn(
            "cache_key", "TEXT NOT NULL REFERENCES \(Variants.table)(\(Variants.cacheKey))")
        package static let table = IndexTable(
            "variant_presets", [preset, cacheKey], constraints: ["PRIMARY KEY (\(preset), \(cacheKey))"],
            withoutRowID: true)
    }

    /// `placeholders`: a source's placeholders, when it has any.
    package enum Placeholders {
        package static let sourceID = IndexColumn("source_id", "INTEGER PRIMARY KEY REFERENCES \(Sources.table)(\(Sources.id))")
        package static let thumbhash = IndexColumn("thumbhash", "BLOB")
        package static let blurhash = IndexColumn("blurhash", "TEXT")
        package static let averageColor = IndexColumn("average_color", "TEXT")
        package static let table = IndexTable("placeholders", [sourceID, thumbhash, blurhash, averageColor])
    }

    /// Every table, in the order the schema creates them.
    package static let tables = [Meta.table, Sources.table, Variants.table, VariantPresets.table, Placeholders.table]
}

extension BundleFormat {
    /// The schema of `index.sqlite`, format 1.2, as executed by the writer: every table of
    /// ``IndexSchema`` and the look-up index of variants. Format 1.2 added `quality_target` (the
    /// key's SSIMULACRA2 target), `encoder_quality` (the encoder quality a variant with a target
    /// was encoded at) and `quality_score` (the score that encoding reached).
    package static let schema: [String] = [
        IndexSchema.Meta.table.create,
        IndexSchema.Sources.table.create,
        IndexSchema.Variants.table.create,
        IndexSchema.Variants.bySource,
        IndexSchema.VariantPresets.table.create,
        IndexSchema.Placeholders.table.create,
    ]
}

/// A column of an index table: its name, which queries select and rows are read by, and its
/// declaration in `CREATE TABLE`.
///
/// In SQL a column reads as its name (`"\(IndexSchema.Variants.cacheKey)"` is `cache_key`), and a
/// read of a row by the column looks that name up in the statement's result.
package struct IndexColumn: Sendable, Hashable, CustomStringConvertible, SQLiteColumnReference {
    /// The column's name in SQL, e.g. `pixel_width`.
    package let name: String
    /// Its type and constraints, e.g. `INTEGER NOT NULL`.
    let declaration: String
    /// The format minor version that added it. Every index of this major version has the columns
    /// of minor version 0; a reader may require those and no others.
    package let minorVersion: Int

    init(_ name: String, _ declaration: String, since minorVersion: Int = 0) {
        self.name = name
        self.declaration = declaration
        self.minorVersion = minorVersion
    }

    package var description: String { name }

    package func position(in statement: SQLiteStatement) -> Int32 {
        name.position(in: statement)
    }
}

/// A table of the index: its name, its columns in order, and the `CREATE TABLE` made from them.
package struct IndexTable: Sendable, CustomStringConvertible {
    package let name: String
    /// Every column, in the table's order.
    package let columns: [IndexColumn]
    /// Constraints on several columns, after the columns, e.g. `PRIMARY KEY (preset, cache_key)`.
    let constraints: [String]
    let withoutRowID: Bool

    init(_ name: String, _ columns: [IndexColumn], constraints: [String] = [], withoutRowID: Bool = false) {
        self.name = name
        self.columns = columns
        self.constraints = constraints
        self.withoutRowID = withoutRowID
    }

    /// In SQL a table reads as its name.
    package var description: String { name }

    /// The columns every index of this major version has (those of minor version 0).
    package var requiredColumns: [IndexColumn] {
        columns.filter { $0.minorVersion == 0 }
    }

    /// The table's column names, in order and without `excluded`, joined by commas: the column
    /// list of an `INSERT` that fills every column.
    package func columnList(excluding excluded: Set<IndexColumn> = []) -> String {
        columns.filter { !excluded.contains($0) }.map(\.name).joined(separator: ", ")
    }

    /// The values of ``columnList(excluding:)`` for an `INSERT … SELECT` from the same table under
    /// `alias` (`p.source, p.format`), or from it unqualified when `alias` is empty, with the
    /// expressions `replacing` gives in place of some columns (a source id renumbered, say).
    package func selectList(from alias: String, replacing: [IndexColumn: String] = [:],
                            excluding excluded: Set<IndexColumn> = []) -> String {
        columns.filter { !excluded.contains($0) }
            .map { replacing[$0] ?? (alias.isEmpty ? $0.name : "\(alias).\($0.name)") }
            .joined(separator: ", ")
    }

    /// The `CREATE TABLE` statement, laid out as the format's first writer laid it out: a column
    /// per line, its declaration after its name padded to one more than the longest name of the
    /// columns the same format version added, then the constraints.
    ///
    /// ```
    /// CREATE TABLE variant_presets (
    ///     preset    TEXT NOT NULL,
    ///     cache_key TEXT NOT NULL REFERENCES variants(cache_key),
    ///     PRIMARY KEY (preset, cache_key)
    /// ) WITHOUT ROWID
    /// ```
    package var create: String {
        var lines: [String] = []
        var start = columns.startIndex
        while start < columns.endIndex {
            let version = columns[start].minorVersion
            let end = columns[start...].firstIndex { $0.minorVersion != version } ?? columns.endIndex
            let width = columns[start..<end].map(\.name.count).max()! + 1
            for column in columns[start..<end] {
                lines.append("    " + column.name + String(repeating: " ", count: width - column.name.count)
                             + column.declaration)
            }
            start = end
        }
        lines += constraints.map { "    " + $0 }
        return "CREATE TABLE \(name) (\n" + lines.joined(separator: ",\n") + "\n)" + (withoutRowID ? " WITHOUT ROWID" : "")
    }
}
