import Foundation
import WarmCache

/// The blobs of the staged rows, read from the staging database: those the variants reference
/// (which the commit checks on disk and garbage collection keeps) and those this run added
/// (which the commit flushes, or an abandoned run removes).
///
/// The added blobs are a table of the staging file, appended in the order they came (a path
/// may come twice, which is harmless). Rows arrive in no useful order, so the staging file has
/// no index that finds the variants of a blob until it is first needed: it is built then, once
/// and sorted, instead of growing by one random insert per variant. Not thread-safe: ``BundleWriter``
/// serialises access.
final class StagedBlobs {
    private let connection: SQLiteConnection
    /// Whether the staging index of blobs exists yet.
    private var indexed = false

    /// The table of blobs this run added, which the staging database creates with its own tables.
    enum AddedBlobs {
        static let table = "added_blobs"
        static let path = "path"
        static let create = """
            CREATE TABLE \(table) (
                \(path) TEXT NOT NULL
            )
            """
    }

    private typealias V = IndexSchema.Variants

    /// The staging index of blobs (covering what ``forEach(_:)`` and
    /// ``references(sha256:fileExtension:)`` read), created by the first of them.
    private static let blobIndex = """
        CREATE INDEX variants_by_blob ON \(V.table) (\(V.blobSHA256), \(V.format), \(V.byteCount))
        """

    /// The blobs of the staging database open on `connection`.
    init(_ connection: SQLiteConnection) {
        self.connection = connection
    }

    // MARK: Added blobs

    /// Notes a blob file this run created (absent before).
    func recordAdded(_ path: String) throws {
        try connection.statement("INSERT INTO \(AddedBlobs.table) (\(AddedBlobs.path)) VALUES (?)").bind(.text(path)).run()
    }

    /// Calls `body` with the path of every blob recorded by ``recordAdded(_:)``.
    func forEachAdded(_ body: (String) throws -> Void) throws {
        let statement = try connection.statement("SELECT \(AddedBlobs.path) FROM \(AddedBlobs.table)")
        defer { try? statement.reset() }
        while try statement.step() {
            try body(statement.text(AddedBlobs.path))
        }
    }

    // MARK: Referenced blobs

    /// Calls `body` with every distinct blob the staged variants reference.
    func forEach(_ body: (_ sha256: String, _ format: ImageFormat, _ byteCount: Int) throws -> Void) throws {
        try indexBlobs()
        let statement = try connection.statement("""
            SELECT DISTINCT \(V.blobSHA256), \(V.format), \(V.byteCount) FROM \(V.table)
            ORDER BY \(V.blobSHA256), \(V.format)
            """)
        defer { try? statement.reset() }
        while try statement.step() {
            guard let format = ImageFormat(rawValue: statement.text(V.format)) else { continue }
            try body(statement.text(V.blobSHA256), format, statement.int(V.byteCount))
        }
    }

    /// Whether a staged variant references the blob `sha256` in `format`'s file.
    func references(sha256: String, fileExtension: String) throws -> Bool {
        try indexBlobs()
        let statement = try connection.statement("SELECT \(V.format) FROM \(V.table) WHERE \(V.blobSHA256) = ?")
        defer { try? statement.reset() }
        _ = try statement.bind(.text(sha256))
        while try statement.step() {
            if ImageFormat(rawValue: statement.text(V.format))?.fileExtension == fileExtension { return true }
        }
        return false
    }

    /// Builds the staging index of blobs once, when it is first read.
    private func indexBlobs() throws {
        guard !indexed else { return }
        try connection.execute(Self.blobIndex)
        indexed = true
    }

    /// The distinct blobs the variants staged at `path` reference, and their total bytes, read
    /// through a connection of its own, so that it can run beside the builder's reading once
    /// staging ended (and before anything writes the file again).
    static func totals(ofStagingAt path: String) throws -> (count: Int, bytes: Int) {
        let connection = try SQLiteConnection(path: path, readOnly: true)
        try connection.execute("PRAGMA mmap_size = 0")  // read through the page cache: no resident map of a large file
        let statement = try connection.statement("""
            SELECT count(*) AS blobs, coalesce(sum(\(V.byteCount)), 0) AS bytes
            FROM (SELECT DISTINCT \(V.blobSHA256), \(V.format), \(V.byteCount) FROM \(V.table))
            """)
        defer { try? statement.reset() }
        return try statement.step() ? (statement.int("blobs"), statement.int("bytes")) : (0, 0)
    }
}
