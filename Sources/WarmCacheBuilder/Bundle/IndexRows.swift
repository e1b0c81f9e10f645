import Foundation
import WarmCache

/// Reads index rows back as ``BundleContents`` values, one at a time, from any database with the
/// index schema: a bundle's `index.sqlite` (a part given to `merge`) or the writer's staging
/// database. Nothing is collected: callers stream rows, so memory does not grow with the index.
enum IndexRows {
    /// A stored variant key that does not parse: the index was not written by warm-cache.
    struct NonCanonicalKey: Error, CustomStringConvertible {
        let key: String
        var description: String { "its variant key '\(key)' is not canonical (run warm-cache verify on it)" }
    }

    private static let sourceColumns = """
        SELECT s.source, s.content_sha256, s.format, s.pixel_width, s.pixel_height, s.byte_count,
               p.thumbhash, p.blurhash, p.average_color
        FROM sources s LEFT JOIN placeholders p ON p.source_id = s.id
        """
    private static let variantColumns = """
        SELECT v.cache_key, v.pixel_width, v.pixel_height, v.byte_count, v.blob_sha256, v.has_alpha FROM variants v
        """

    /// Calls `body` with every source, in storage order.
    static func forEachSource(_ connection: SQLiteConnection, _ body: (BundleContents.Source) throws -> Void) throws {
        let statement = try connection.statement(sourceColumns)
        defer { try? statement.reset() }
        while try statement.step() {
            try body(source(statement))
        }
    }

    /// The source with this identifier, or `nil`.
    static func source(_ identifier: SourceIdentifier, in connection: SQLiteConnection) throws -> BundleContents.Source? {
        let statement = try connection.statement(sourceColumns + " WHERE s.source = ?")
        defer { try? statement.reset() }
        return try statement.bind(.text(identifier.rawValue)).step() ? source(statement) : nil
    }

    /// Calls `body` with every variant and its presets, in key order.
    static func forEachVariant(_ connection: SQLiteConnection,
                               _ body: (BundleContents.Variant) throws -> Void) throws {
        let presets = try PresetLookup(connection)
        let statement = try connection.statement(variantColumns + " ORDER BY v.cache_key")
        defer { try? statement.reset() }
        while try statement.step() {
            try body(variant(statement, presets: presets))
        }
    }

    /// The variant with this key and its presets, or `nil`.
    static func variant(_ cacheKey: String, in connection: SQLiteConnection) throws -> BundleContents.Variant? {
        let statement = try connection.statement(variantColumns + " WHERE v.cache_key = ?")
        defer { try? statement.reset() }
        guard try statement.bind(.text(cacheKey)).step() else { return nil }
        return try variant(statement, presets: PresetLookup(connection))
    }

    private static func source(_ statement: SQLiteStatement) -> BundleContents.Source {
        let placeholder = ImagePlaceholder(thumbHash: statement.blob(6), blurHash: statement.optionalText(7),
                                           averageColor: statement.optionalText(8).flatMap(RGBAColor.init(hex:)))
        return BundleContents.Source(
            identifier: SourceIdentifier(verbatim: statement.text(0)), contentSHA256: statement.text(1),
            format: statement.text(2), pixelSize: PixelSize(width: statement.int(3), height: statement.int(4)),
            byteCount: statement.int(5), placeholder: placeholder.isEmpty ? nil : placeholder)
    }

    private static func variant(_ statement: SQLiteStatement, presets: PresetLookup) throws -> BundleContents.Variant {
        let text = statement.text(0)
        guard let key = VariantKey(parsing: text) else { throw NonCanonicalKey(key: text) }
        return BundleContents.Variant(
            key: key, pixelSize: PixelSize(width: statement.int(1), height: statement.int(2)),
            byteCount: statement.int(3), blobSHA256: statement.text(4), hasAlpha: statement.int(5) != 0,
            presets: try presets.names(of: text))
    }

    /// The presets of a variant. `variant_presets` is keyed by (preset, cache_key) and a manifest
    /// has few presets: one indexed probe per preset name costs far less than a scan per variant.
    private struct PresetLookup {
        let connection: SQLiteConnection
        /// Every preset name in the table, sorted.
        let names: [String]

        init(_ connection: SQLiteConnection) throws {
            self.connection = connection
            // min() and `>` on the key's leading column are index seeks: one per name.
            var names: [String] = []
            let first = try connection.statement("SELECT min(preset) FROM variant_presets")
            defer { try? first.reset() }
            var name = try first.step() ? first.optionalText(0) : nil
            let next = try connection.statement("SELECT min(preset) FROM variant_presets WHERE preset > ?")
            defer { try? next.reset() }
            while let current = name {
                names.append(current)
                try next.reset()
                name = try next.bind(.text(current)).step() ? next.optionalText(0) : nil
            }
            self.names = names
        }

        func names(of cacheKey: String) throws -> [String] {
            guard !names.isEmpty else { return [] }
            let probe = try connection.statement("SELECT 1 FROM variant_presets WHERE preset = ? AND cache_key = ?")
            defer { try? probe.reset() }
            var found: [String] = []
            for name in names {
                try probe.reset()
                if try probe.bind(.text(name), .text(cacheKey)).step() { found.append(name) }
            }
            return found
        }
    }
}
