import Foundation
import WarmCache

/// The scratch SQLite file a run's index rows wait in until they are published: how rows are
/// written there, and when they are committed.
///
/// It has the index's own tables (not its look-up indexes), whose keys catch a source or a
/// variant key staged twice, and source ids that are provisional (the order rows arrived in;
/// publication renumbers them). One table more: the blobs this run added (``StagedBlobs``).
///
/// The file is scratch: no journal, no flush. Rows go in inside a transaction that is committed
/// every ``batchSize`` sources, and once more when staging ends (``end()``). Not thread-safe:
/// ``BundleWriter`` serialises access.
final class StagingDatabase {
    let path: String
    let connection: SQLiteConnection
    /// Sources staged since the last commit.
    private var pendingRows = 0
    /// Whether staging ended (``end()``): rows staged afterwards are not published.
    private(set) var hasEnded = false

    /// Staged rows are committed in batches of this many sources.
    private static let batchSize = 512

    private static let setup = """
        PRAGMA journal_mode = OFF;
        PRAGMA synchronous = OFF;
        """

    /// Creates an empty staging database at `path` (replacing any file there).
    init(path: String) throws {
        self.path = path
        try? FileManager.default.removeItem(atPath: path)
        connection = try SQLiteConnection(path: path, readOnly: false)
        try connection.execute(Self.setup)
        // The index's tables with their keys (which catch a source or key staged twice), but not its
        // look-up indexes: nothing reads the staged rows by them, and each costs a write per row.
        for table in IndexSchema.tables {
            try connection.execute(table.create)
        }
        try connection.execute(StagedBlobs.AddedBlobs.create)
        try connection.execute("BEGIN")
    }

    /// Removes the file.
    func discard() {
        connection.finalizeStatements()
        try? connection.execute("COMMIT")
        try? FileManager.default.removeItem(atPath: path)
    }

    // MARK: Rows

    /// Inserts one source's rows. Throws ``IndexBuilderError/inconsistent(_:)`` for a source or a
    /// variant key staged before: the tables' own keys find them (no look-up first), and the
    /// statements are prepared once, as a run stages one source per finished source.
    ///
    /// ``SourceRows`` gives each row's values in its table's column order, without the source id:
    /// the `sources` row's id is assigned here, and the other rows take it.
    func stage(_ rows: SourceRows) throws {
        var sourceID = 0
        var variantKey = SQLiteValue.null
        func text(_ value: SQLiteValue?) -> String {
            if case .text(let text)? = value { return text }
            return "?"
        }
        try rows.forEachRow { table, values in
            switch table {
            case .sources:
                do {
                    try connection.statement(slot: Slot.source, Insert.source).bind(values).run()
                } catch let error as SQLiteError where error.isConstraint {
                    throw IndexBuilderError.inconsistent("source \(text(values.first)) is listed twice")
                }
                sourceID = Int(connection.lastInsertRowID)  // the builder runs where Int has 64 bits
            case .placeholders:
                try connection.statement(slot: Slot.placeholder, Insert.placeholder).bind([.int(sourceID)] + values).run()
            case .variants:
                variantKey = values.first ?? .null
                do {
                    try connection.statement(slot: Slot.variant, Insert.variant)
                        .bind([variantKey, .int(sourceID)] + values.dropFirst()).run()
                } catch let error as SQLiteError where error.isConstraint {
                    throw IndexBuilderError.inconsistent("variant \(text(variantKey)) is listed twice")
                }
            case .variantPresets:
                for preset in values {
                    try connection.statement(slot: Slot.preset, Insert.preset).bind(preset, variantKey).run()
                }
            }
        }
        try countSource()
    }

    /// Slots of the statements prepared once for ``stage(_:)``.
    private enum Slot {
        static let source = 0, placeholder = 1, variant = 2, preset = 3
    }

    /// The statements of ``stage(_:)``: each fills its table's columns in order (a source's but its id).
    private enum Insert {
        typealias S = IndexSchema.Sources
        typealias V = IndexSchema.Variants
        static let source = insert(S.table, excluding: [S.id])
        static let placeholder = insert(IndexSchema.Placeholders.table)
        static let variant = insert(V.table)
        static let preset = insert(IndexSchema.VariantPresets.table)

        static func insert(_ table: IndexTable, excluding excluded: Set<IndexColumn> = []) -> String {
            let count = table.columns.count - excluded.count
            return "INSERT INTO \(table) (\(table.columnList(excluding: excluded))) VALUES ("
                + Array(repeating: "?", count: count).joined(separator: ", ") + ")"
        }
    }

    /// Counts a staged source, committing every ``batchSize`` while staging lasts.
    private func countSource() throws {
        guard !hasEnded else { return }
        pendingRows += 1
        if pendingRows >= Self.batchSize {
            pendingRows = 0
            try connection.execute("COMMIT; BEGIN")
        }
    }

    /// Forgets every staged row (not the added blobs).
    func clear() throws {
        for table in [IndexSchema.Sources.table, IndexSchema.Placeholders.table, IndexSchema.Variants.table,
                      IndexSchema.VariantPresets.table] {
            try connection.execute("DELETE FROM \(table)")
        }
    }

    /// The rows of a staging table.
    func count(_ table: String) throws -> Int {
        let statement = try connection.statement("SELECT count(*) AS count FROM \(table)")
        defer { try? statement.reset() }
        return try statement.step() ? statement.int("count") : 0
    }

    /// Ends staging (commits the staged rows): rows staged afterwards are not published, and other
    /// connections may read the file (``StagedBlobs/totals(ofStagingAt:)``) until it is next written.
    func end() throws {
        hasEnded = true
        try connection.execute("COMMIT")
    }

    // MARK: Other databases

    /// Attaches the database at `path` to the staging connection as `name`.
    func attach(_ path: String, as name: String) throws {
        try connection.execute("ATTACH DATABASE \(Self.quoted(path)) AS \(name)")
    }

    /// `text` as an SQL string literal.
    static func quoted(_ text: String) -> String {
        "'" + text.replacingOccurrences(of: "'", with: "''") + "'"
    }
}
