/// Something wrong with one row (or table) of a bundle's index, found while reading it as
/// untrusted input: what, where, and what the reader did about it.
///
/// A reader skips a row with a problem (it never guesses, and never builds a path from a value
/// it has not checked); ``CacheBundle/indexProblems()`` lists every problem of an index.
public struct IndexProblem: Error, Sendable, Hashable, CustomStringConvertible {
    /// The kind of problem, for code that counts or filters them.
    public enum Kind: String, Sendable, Hashable, Codable {
        /// A value of the wrong storage type (e.g. TEXT where an INTEGER belongs), or NULL where a value is required.
        case wrongType
        /// A value outside what the format allows: a hash that is not 64 lowercase hex digits, a size
        /// that is zero, negative or absurdly large, a key that does not belong to its source.
        case invalidValue
        /// A value this reader does not know (e.g. a format added by a newer writer): the row is skipped.
        case unknownValue
        /// A row that refers to something the index does not hold (a variant of a missing source).
        case danglingReference
        /// A table or column the format requires is missing.
        case missingSchema
    }

    /// What kind of problem it is.
    public let kind: Kind
    /// The table concerned: `variants`, `sources`, `variant_presets`, `placeholders`, `meta`.
    public let table: String
    /// The row: its cache key, source identifier or rowid, as the table identifies rows.
    public let row: String
    /// The column concerned, or `""` for the whole row.
    public let column: String
    /// What is wrong, in words.
    public let detail: String

    /// Creates a problem; the index validation makes these.
    package init(_ kind: Kind, table: String, row: String, column: String, detail: String) {
        self.kind = kind
        self.table = table
        self.row = row
        self.column = column
        self.detail = detail
    }

    /// The place and the problem in one line, e.g.
    /// "variants.blob_sha256 of row https://…|64x64|@2x|…: not 64 lowercase hex digits".
    public var description: String {
        let place = column.isEmpty ? "\(table) row \(row)" : "\(table).\(column) of row \(row)"
        return "\(place): \(detail)"
    }
}
