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
        func groups(_ sql: String) throws -> [Group] {
            let statement = try connection.statement(sql)
            var result: [Group] = []
            while try statement.step() {
                result.append(Group(name: statement.text(0), variants: statement.int(1), files: statement.int(2),
                                    bytes: statement.int(3)))
            }
            return result
        }
        // A file is a blob hash in one format (its name in objects/).
        let total = try connection.statement("""
            SELECT count(*), coalesce(sum(bytes), 0) FROM
                (SELECT max(byte_count) AS bytes FROM variants GROUP BY blob_sha256, format)
            """)
        _ = try total.step()
        return BundlePayload(
            files: total.int(0),
            bytes: total.int(1),
            byFormat: try groups("""
                SELECT format, sum(uses), count(*), sum(bytes) FROM
                    (SELECT format, count(*) AS uses, max(byte_count) AS bytes FROM variants
                     GROUP BY blob_sha256, format)
                GROUP BY format ORDER BY 4 DESC, 1
                """),
            byPreset: try groups("""
                SELECT preset, sum(uses), count(*), sum(bytes) FROM
                    (SELECT p.preset AS preset, count(*) AS uses, max(v.byte_count) AS bytes
                     FROM variant_presets p JOIN variants v ON v.cache_key = p.cache_key
                     GROUP BY p.preset, v.blob_sha256, v.format)
                GROUP BY preset ORDER BY 4 DESC, 1
                """),
            largestSources: try groups("""
                SELECT s.source, sum(uses), count(*), sum(bytes) FROM
                    (SELECT source_id, count(*) AS uses, max(byte_count) AS bytes FROM variants
                     GROUP BY source_id, blob_sha256, format) f
                JOIN sources s ON s.id = f.source_id
                GROUP BY s.id ORDER BY 4 DESC, 1 LIMIT \(largestSourceCount)
                """))
    }

    /// The bundle's weight as summaries print it: `2.4 MB in 180 files (avif 1.6 MB, jpeg 0.8 MB)`.
    public var summary: String {
        let formats = byFormat.map { "\($0.name) \(ByteCountText.format($0.bytes))" }.joined(separator: ", ")
        return "\(ByteCountText.format(bytes)) in \(files) file\(files == 1 ? "" : "s")"
            + (formats.isEmpty ? "" : " (\(formats))")
    }
}

/// A warm whose bundle would weigh more than the manifest's `budget`: nothing was published.
public struct BudgetExceeded: Error, Sendable, CustomStringConvertible {
    public var budget: Int
    public var payload: BundlePayload
    /// The bundle that stays as it was.
    public var bundlePath: String

    public var description: String {
        let presets = payload.byPreset.prefix(3).map { "\($0.name) \(ByteCountText.format($0.bytes))" }
        let sources = payload.largestSources.prefix(3).map { "\($0.name) \(ByteCountText.format($0.bytes))" }
        var text = "the bundle would take \(ByteCountText.format(payload.bytes)), over its budget of "
            + "\(ByteCountText.format(budget)), so nothing was published (\(bundlePath) is unchanged)"
        if !presets.isEmpty { text += "; largest presets: " + presets.joined(separator: ", ") }
        if !sources.isEmpty { text += "; largest sources: " + sources.joined(separator: ", ") }
        return text + ". Lower quality_target, use formats: [smallest], drop sizes or scales, or raise 'budget'."
    }
}
