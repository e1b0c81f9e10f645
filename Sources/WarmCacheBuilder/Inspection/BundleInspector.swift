import Foundation
import WarmCache

/// What is inside a bundle: counts, bytes by format and by variant shape, largest entries.
public struct BundleReport: Sendable, Codable {
    /// A format, preset or variant shape: its variants, the distinct files they use, and those
    /// files' bytes (a file shared by several variants counts once).
    public typealias Group = BundlePayload.Group

    public var path: String
    public var formatVersion: String
    public var generator: String
    public var sources: Int
    public var variants: Int
    /// Distinct blob files the index references.
    public var blobs: Int
    /// Bytes of those files (each counted once).
    public var blobBytes: Int
    /// Bytes of the originals, as downloaded.
    public var sourceBytes: Int
    public var placeholders: Int
    public var byFormat: [Group]
    /// By box, scale and fit, e.g. `320x_ @2x inside`.
    public var byVariant: [Group]
    public var byPreset: [Group]
    public var largest: [VariantReport]
}

/// Reads a bundle's index to describe it. Read-only; opens the bundle like the runtime library does.
public struct BundleInspector {
    public let bundleURL: URL

    public init(bundleURL: URL) {
        self.bundleURL = bundleURL
    }

    /// - Parameter largest: how many of the largest variants to list.
    public func report(largest: Int = 10) throws -> BundleReport {
        let bundle = try CacheBundle(contentsOf: bundleURL)
        return try bundle.query { connection in
            func scalar(_ sql: String) throws -> Int {
                let statement = try connection.statement(sql)
                return try statement.step() ? statement.int(0) : 0
            }
            func groups(_ sql: String) throws -> [BundleReport.Group] {
                let statement = try connection.statement(sql)
                var result: [BundleReport.Group] = []
                while try statement.step() {
                    result.append(.init(name: statement.text(0), variants: statement.int(1), files: statement.int(2),
                                        bytes: statement.int(3)))
                }
                return result
            }
            let payload = try BundlePayload.measure(connection)
            let largestStatement = try connection.statement("""
                SELECT \(VariantReport.columns) FROM variants v ORDER BY v.byte_count DESC, v.cache_key LIMIT ?
                """)
            try largestStatement.bind(.int(largest))
            var entries: [VariantReport] = []
            while try largestStatement.step() {
                entries.append(VariantReport(row: largestStatement))
            }
            return BundleReport(
                path: bundleURL.path,
                formatVersion: "\(bundle.info.formatMajor).\(bundle.info.formatMinor)",
                generator: bundle.info.generator,
                sources: try scalar("SELECT count(*) FROM sources"),
                variants: try scalar("SELECT count(*) FROM variants"),
                blobs: payload.files,
                blobBytes: payload.bytes,
                sourceBytes: try scalar("SELECT coalesce(sum(byte_count), 0) FROM sources"),
                placeholders: try scalar("SELECT count(*) FROM placeholders"),
                byFormat: payload.byFormat,
                byVariant: try groups("""
                    SELECT shape, sum(uses), count(*), sum(bytes) FROM
                        (SELECT coalesce(width_pt, '_') || 'x' || coalesce(height_pt, '_') || ' @' || scale || 'x '
                                || fit AS shape, count(*) AS uses, max(byte_count) AS bytes
                         FROM variants GROUP BY 1, blob_sha256, format)
                    GROUP BY shape ORDER BY 4 DESC, 1
                    """),
                byPreset: payload.byPreset,
                largest: entries)
        }
    }
}

/// Every source of a bundle with its variants: `inspect --list`.
public struct BundleListing: Sendable, Codable {
    public struct Source: Sendable, Codable {
        public var identifier: String
        public var format: String
        public var pixelWidth: Int
        public var pixelHeight: Int
        /// Bytes of the original.
        public var bytes: Int
        public var variants: [VariantReport]

        /// The original's size is `originalBytes`, as in the warm report; a variant's is `bytes`.
        private enum CodingKeys: String, CodingKey {
            case identifier, format, pixelWidth, pixelHeight, bytes = "originalBytes", variants
        }
    }

    public var path: String
    /// In identifier order; variants in cache-key order.
    public var sources: [Source]
}

extension BundleInspector {
    /// Every source with its variants.
    public func listing() throws -> BundleListing {
        let bundle = try CacheBundle(contentsOf: bundleURL)
        return try bundle.query { connection in
            var sources: [BundleListing.Source] = []
            var indexByID: [Int: Int] = [:]
            let sourceRows = try connection.statement("""
                SELECT id, source, format, pixel_width, pixel_height, byte_count FROM sources ORDER BY source
                """)
            while try sourceRows.step() {
                indexByID[sourceRows.int(0)] = sources.count
                sources.append(.init(identifier: sourceRows.text(1), format: sourceRows.text(2),
                                     pixelWidth: sourceRows.int(3), pixelHeight: sourceRows.int(4),
                                     bytes: sourceRows.int(5), variants: []))
            }
            let variantRows = try connection.statement("""
                SELECT v.source_id, \(VariantReport.columns) FROM variants v ORDER BY v.source_id, v.cache_key
                """)
            while try variantRows.step() {
                guard let index = indexByID[variantRows.int(0)] else { continue }
                sources[index].variants.append(VariantReport(row: variantRows, at: 1))
            }
            return BundleListing(path: bundleURL.path, sources: sources)
        }
    }
}
