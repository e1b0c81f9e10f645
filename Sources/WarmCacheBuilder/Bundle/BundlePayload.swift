import Foundation
import WarmCache

/// What a bundle costs the app that ships it: the bytes of its files, in all and by format, by
/// preset and by source.
///
/// Each file counts once: several variants that encode to the same bytes share one file, and a
/// preset or source is charged for each distinct file its variants use. A file shared by two
/// presets appears in both presets' rows, so those rows can add up to more than the total.
public struct BundlePayload: Sendable, Codable, Hashable {
    /// One row: a format, preset or source, its variants, the distinct files they use and
    /// those files' bytes.
    public struct Group: Sendable, Codable, Hashable {
        public var name: String
        public var variants: Int
        public var files: Int
        public var bytes: Int

        public init(name: String, variants: Int, files: Int, bytes: Int) {
            self.name = name
            self.variants = variants
            self.files = files
            self.bytes = bytes
        }

        /// The group of a row with the columns `name`, `variants`, `files` and `bytes`.
        package init(row: SQLiteStatement) {
            self.init(name: row.text("name"), variants: row.int("variants"), files: row.int("files"),
                      bytes: row.int("bytes"))
        }

        /// The groups of every row of `sql`, whose columns are those of ``init(row:)``.
        package static func all(_ sql: String, in connection: SQLiteConnection) throws -> [Group] {
            let statement = try connection.statement(sql)
            var groups: [Group] = []
            while try statement.step() {
                groups.append(Group(row: statement))
            }
            return groups
        }
    }

    /// Distinct files (blobs) the index references.
    public var files: Int
    /// Their bytes: what the bundle adds to the app.
    public var bytes: Int
    /// Largest first.
    public var byFormat: [Group]
    /// Largest first.
    public var byPreset: [Group]
    /// The sources whose files weigh most, largest first (at most ``largestSourceCount``).
    public var largestSources: [Group]

    public static let largestSourceCount = 5

    /// Measures the index at `path` (a published index or one about to be).
    package static func measure(indexAt path: String) throws -> BundlePayload {
        let connection = try SQLiteConnection(path: path, readOnly: true)
        // Read through a small cache, not a memory map of the whole index (whose pages would count
        // towards the warm's peak memory), and let the grouping sorts spill to a file.
        try connection.execute("PRAGMA mmap_size = 0; PRAGMA cache_size = -256; PRAGMA temp_store = FILE")
        return try measure(connection)
    }

    /// Measures the index open on `connection`.
    package static func measure(_ connection: SQLiteConnection) throws -> BundlePayload {
        typealias S = IndexSchema.Sources
        typealias V = IndexSchema.Variants
        typealias P = IndexSchema.VariantPresets
        // A file is a blob hash in one format (its name in objects/). Each group's row names its
        // columns as Group(row:) reads them; it is ordered by its bytes, then its name.
        let total = try connection.statement("""
            SELECT count(*) AS files, coalesce(sum(bytes), 0) AS bytes FROM
                (SELECT max(\(V.byteCount)) AS bytes FROM \(V.table) GROUP BY \(V.blobSHA256), \(V.format))
            """)
        _ = try total.step()
        return BundlePayload(
            files: total.int("files"),
            bytes: total.int("bytes"),
            byFormat: try Group.all("""
                SELECT \(V.format) AS name, sum(uses) AS variants, count(*) AS files, sum(bytes) AS bytes FROM
                    (SELECT \(V.format), count(*) AS uses, max(\(V.byteCount)) AS bytes FROM \(V.table)
                     GROUP BY \(V.blobSHA256), \(V.format))
                GROUP BY \(V.format) ORDER BY 4 DESC, 1
                """, in: connection),
            byPreset: try Group.all("""
                SELECT preset AS name, sum(uses) AS variants, count(*) AS files, sum(bytes) AS bytes FROM
                    (SELECT p.\(P.preset) AS preset, count(*) AS uses, max(v.\(V.byteCount)) AS bytes
                     FROM \(P.table) p JOIN \(V.table) v ON v.\(V.cacheKey) = p.\(P.cacheKey)
                     GROUP BY p.\(P.preset), v.\(V.blobSHA256), v.\(V.format))
                GROUP BY preset ORDER BY 4 DESC, 1
                """, in: connection),
            largestSources: try Group.all("""
                SELECT s.\(S.source) AS name, sum(uses) AS variants, count(*) AS files, sum(bytes) AS bytes FROM
                    (SELECT \(V.sourceID), count(*) AS uses, max(\(V.byteCount)) AS bytes FROM \(V.table)
                     GROUP BY \(V.sourceID), \(V.blobSHA256), \(V.format)) f
                JOIN \(S.table) s ON s.\(S.id) = f.\(V.sourceID)
                GROUP BY s.\(S.id) ORDER BY 4 DESC, 1 LIMIT \(largestSourceCount)
                """, in: connection))
    }

    /// The bundle's weight as summaries print it: `2.4 MB in 180 files (avif 1.6 MB, jpeg 0.8 MB)`.
    public var summary: String {
        let formats = byFormat.map { "\($0.name) \(ByteCountText.format($0.bytes))" }.joined(separator: ", ")
        return "\(ByteCountText.format(bytes)) in \(files) file\(files == 1 ? "" : "s")"
            + (formats.isEmpty ? "" : " (\(formats))")
    }
}

/// A warm whose bundle would weigh more than the manifest's `budget`: nothing was published.
/// The budget covers every file of the bundle: its blobs and its index.
public struct BudgetExceeded: Error, Sendable, CustomStringConvertible {
    public var budget: Int
    public var payload: BundlePayload
    /// The bytes of the index the bundle would have.
    public var indexBytes: Int
    /// The bundle that stays as it was.
    public var bundlePath: String
    /// What could bring it under its budget, as the manifest stands (``advice(usesSmallest:usesQualityTarget:)``).
    public var advice = BudgetExceeded.advice(usesSmallest: false, usesQualityTarget: false)

    public init(budget: Int, payload: BundlePayload, indexBytes: Int, bundlePath: String) {
        self.budget = budget
        self.payload = payload
        self.indexBytes = indexBytes
        self.bundlePath = bundlePath
    }

    /// Whether a bundle of `payload` with an index of `indexBytes` exceeds `budget`.
    static func check(_ budget: Int?, payload: BundlePayload, indexBytes: Int, bundlePath: String) throws {
        guard let budget, payload.bytes + indexBytes > budget else { return }
        throw BudgetExceeded(budget: budget, payload: payload, indexBytes: indexBytes, bundlePath: bundlePath)
    }

    /// The bundle's bytes: its blobs and its index.
    public var bytes: Int { payload.bytes + indexBytes }

    public var description: String {
        let presets = payload.byPreset.prefix(3).map { "\($0.name) \(ByteCountText.format($0.bytes))" }
        let sources = payload.largestSources.prefix(3).map { "\($0.name) \(ByteCountText.format($0.bytes))" }
        let (size, limit) = Self.distinct(bytes, budget)
        var text = "the bundle would take \(size) (\(ByteCountText.format(payload.bytes)) in \(payload.files) "
            + "file\(payload.files == 1 ? "" : "s") and a \(ByteCountText.format(indexBytes)) index), over its budget of "
            + "\(limit), so nothing was published (\(bundlePath) is unchanged)"
        if !presets.isEmpty { text += "; largest presets: " + presets.joined(separator: ", ") }
        if !sources.isEmpty { text += "; largest sources: " + sources.joined(separator: ", ") }
        return text + ". " + advice
    }

    /// Two sizes as text that tells them apart: rounded (`3.8 MB`) unless that makes them look
    /// equal, then exact (`3,814,153 bytes`).
    package static func distinct(_ one: Int, _ other: Int) -> (String, String) {
        let rounded = (ByteCountText.format(one), ByteCountText.format(other))
        guard rounded.0 == rounded.1, one != other else { return rounded }
        func exact(_ count: Int) -> String {
            var digits = String(count)
            var index = digits.endIndex
            while digits.distance(from: digits.startIndex, to: index) > 3 {
                index = digits.index(index, offsetBy: -3)
                digits.insert(",", at: index)
            }
            return digits + " bytes"
        }
        return (exact(one), exact(other))
    }

    /// What a manifest can change to fit its budget: a quality target (lower, or set one where
    /// qualities are fixed), `formats: [smallest]` where it is not used, fewer sizes, a larger budget.
    public static func advice(usesSmallest: Bool, usesQualityTarget: Bool) -> String {
        var steps = [usesQualityTarget ? "Lower quality_target" : "Set a quality_target (or lower the fixed qualities)"]
        if !usesSmallest { steps.append("use formats: [smallest]") }
        steps += ["drop sizes or scales", "or raise 'budget'"]
        return steps.joined(separator: ", ") + "."
    }
}
