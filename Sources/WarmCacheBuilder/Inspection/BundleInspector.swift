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

    /// The JSON names are the warm report's for the same facts (docs/json.md): `files` and
    /// `bytes` as in its `payload`, `originalBytes` as in its sources.
    private enum CodingKeys: String, CodingKey {
        case path, formatVersion, generator, sources, variants, placeholders, byFormat, byVariant, byPreset, largest
        case blobs = "files", blobBytes = "bytes", sourceBytes = "originalBytes"
    }
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
        typealias S = IndexSchema.Sources
        typealias V = IndexSchema.Variants
        return try bundle.query { connection in
            /// The number `expression` gives over `table`.
            func scalar(_ expression: String, from table: IndexTable) throws -> Int {
                let statement = try connection.statement("SELECT \(expression) AS value FROM \(table)")
                return try statement.step() ? statement.int("value") : 0
            }
            let payload = try BundlePayload.measure(connection)
            let largestStatement = try connection.statement("""
                SELECT \(VariantReport.columns) FROM \(V.table) v ORDER BY v.\(V.byteCount) DESC, v.\(V.cacheKey) LIMIT ?
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
                sources: try scalar("count(*)", from: S.table),
                variants: try scalar("count(*)", from: V.table),
                blobs: payload.files,
                blobBytes: payload.bytes,
                sourceBytes: try scalar("coalesce(sum(\(S.byteCount)), 0)", from: S.table),
                placeholders: try scalar("count(*)", from: IndexSchema.Placeholders.table),
                byFormat: payload.byFormat,
                byVariant: try BundleReport.Group.all("""
                    SELECT shape AS name, sum(uses) AS variants, count(*) AS files, sum(bytes) AS bytes FROM
                        (SELECT coalesce(\(V.widthPt), '_') || 'x' || coalesce(\(V.heightPt), '_') || ' @' || \(V.scale)
                                || 'x ' || \(V.fit) AS shape, count(*) AS uses, max(\(V.byteCount)) AS bytes
                         FROM \(V.table) GROUP BY 1, \(V.blobSHA256), \(V.format))
                    GROUP BY shape ORDER BY 4 DESC, 1
                    """, in: connection),
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
        typealias S = IndexSchema.Sources
        typealias V = IndexSchema.Variants
        return try bundle.query { connection in
            var sources: [BundleListing.Source] = []
            var indexByID: [Int: Int] = [:]
            let sourceRows = try connection.statement("""
                SELECT \(S.id), \(S.source), \(S.format), \(S.pixelWidth), \(S.pixelHeight), \(S.byteCount)
                FROM \(S.table) ORDER BY \(S.source)
                """)
            while try sourceRows.step() {
                indexByID[sourceRows.int(S.id)] = sources.count
                sources.append(.init(identifier: sourceRows.text(S.source), format: sourceRows.text(S.format),
                                     pixelWidth: sourceRows.int(S.pixelWidth), pixelHeight: sourceRows.int(S.pixelHeight),
                                     bytes: sourceRows.int(S.byteCount), variants: []))
            }
            let variantRows = try connection.statement("""
                SELECT v.\(V.sourceID), \(VariantReport.columns) FROM \(V.table) v
                ORDER BY v.\(V.sourceID), v.\(V.cacheKey)
                """)
            while try variantRows.step() {
                guard let index = indexByID[variantRows.int(V.sourceID)] else { continue }
                sources[index].variants.append(VariantReport(row: variantRows))
            }
            return BundleListing(path: bundleURL.path, sources: sources)
        }
    }
}
