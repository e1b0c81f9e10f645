import Foundation
import WarmCache

/// Writes a small bundle straight into SQLite and `objects/`, without the builder (no libvips):
/// for loader tests and benchmarks that need a real bundle a ``CacheBundle`` opens.
///
/// ```swift
/// var fixture = try FixtureBundle()
/// fixture.add("https://cdn.example.com/a.jpg", width: 100, scale: 2, pixelSize: PixelSize(width: 200, height: 150))
/// fixture.setPlaceholder("https://cdn.example.com/a.jpg", ImagePlaceholder(averageColor: RGBAColor(red: 9, green: 9, blue: 9)))
/// let bundle = try CacheBundle(contentsOf: try fixture.write())
/// ```
///
/// Each variant is a PNG blob whose header states its pixel size (``StandInImages/png(width:height:filler:)``,
/// what ``StandInDecoder`` reads), unless other bytes are given. Blobs are named by a stand-in
/// content hash: 64 hex digits from the bytes, not SHA-256 (the reader never re-hashes).
public struct FixtureBundle {
    /// One variant: an `inside` PNG `width` points wide at `scale`, of `pixelSize` pixels.
    public struct Variant {
        public var source: String
        public var width: Int
        public var scale: Int
        public var pixelSize: PixelSize
        public var bytes: Data
    }

    /// The bundle directory (`<name>.warmcache` in a new temporary folder).
    public let url: URL
    public private(set) var variants: [Variant] = []
    public private(set) var placeholders: [String: ImagePlaceholder] = [:]

    public init(name: String = "Images") throws {
        url = FileManager.default.temporaryDirectory
            .appendingPathComponent("wc-fixture-\(UUID().uuidString)/\(name).warmcache")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    /// Adds a variant of `source`; `bytes` default to a PNG header stating `pixelSize`.
    public mutating func add(_ source: String, width: Int, scale: Int = 1, pixelSize: PixelSize, bytes: Data? = nil) {
        variants.append(Variant(source: source, width: width, scale: scale, pixelSize: pixelSize,
                                bytes: bytes ?? StandInImages.png(width: pixelSize.width, height: pixelSize.height)))
    }

    /// Stores `placeholder` for `source` (which needs at least one variant).
    public mutating func setPlaceholder(_ source: String, _ placeholder: ImagePlaceholder) {
        placeholders[source] = placeholder
    }

    /// A stand-in content hash: 64 lowercase hex digits from the bytes (FNV-1a, four rounds).
    public static func fakeHash(_ data: Data) -> String {
        var state: UInt64 = 0xcbf2_9ce4_8422_2325
        var hex = ""
        for round in 0..<4 {
            for byte in data { state = (state ^ UInt64(byte)) &* 0x100_0000_01b3 }
            state = (state ^ UInt64(round)) &* 0x100_0000_01b3
            let digits = String(state, radix: 16)
            hex += String(repeating: "0", count: 16 - digits.count) + digits
        }
        return hex
    }

    /// Writes the index and the blobs; returns the bundle directory.
    @discardableResult
    public func write() throws -> URL {
        let connection = try SQLiteConnection(path: url.appendingPathComponent(BundleFormat.indexFileName).path,
                                              readOnly: false)
        defer { connection.close() }
        try connection.execute("PRAGMA application_id = \(BundleFormat.applicationID)")
        for statement in BundleFormat.schema { try connection.execute(statement) }
        try connection.execute("INSERT INTO \(IndexSchema.Meta.table) VALUES ('\(BundleFormat.MetaKey.formatMajor)', "
                               + "'\(BundleFormat.majorVersion)'), ('\(BundleFormat.MetaKey.formatMinor)', '\(BundleFormat.minorVersion)')")
        try connection.transaction {
            var ids: [String: Int] = [:]
            for variant in variants {
                let id = try ids[variant.source] ?? insertSource(variant, id: ids.count + 1, into: connection)
                ids[variant.source] = id
                try insert(variant, sourceID: id, into: connection)
            }
            for (source, placeholder) in placeholders {
                guard let id = ids[source] else { continue }
                typealias PH = IndexSchema.Placeholders
                try connection.statement("INSERT INTO \(PH.table) (\(PH.sourceID), \(PH.thumbhash), \(PH.blurhash), \(PH.averageColor)) VALUES (?, ?, ?, ?)")
                    .bind(.int(id), placeholder.thumbHash.map { .blob($0) } ?? .null, .string(placeholder.blurHash),
                          .string(placeholder.averageColor?.hex)).run()
            }
        }
        return url
    }

    private func insertSource(_ variant: Variant, id: Int, into connection: SQLiteConnection) throws -> Int {
        typealias S = IndexSchema.Sources
        try connection.statement("INSERT INTO \(S.table) (\(S.id), \(S.source), \(S.contentSHA256), \(S.format), "
                                 + "\(S.pixelWidth), \(S.pixelHeight), \(S.byteCount)) VALUES (?, ?, ?, 'png', 4000, 3000, 1)")
            .bind(.int(id), .text(SourceIdentifier(variant.source).rawValue), .text(Self.fakeHash(Data(variant.source.utf8))))
            .run()
        return id
    }

    private func insert(_ variant: Variant, sourceID: Int, into connection: SQLiteConnection) throws {
        typealias V = IndexSchema.Variants
        let hash = Self.fakeHash(variant.bytes)
        let spec = VariantSpec(width: variant.width, height: nil, scale: variant.scale, format: .png)
        let key = VariantKey(source: SourceIdentifier(variant.source), spec: spec)
        try connection.statement("""
            INSERT INTO \(V.table) (\(V.cacheKey), \(V.sourceID), \(V.widthPt), \(V.scale), \(V.fit), \(V.upscale), \
            \(V.format), \(V.options), \(V.processors), \(V.pixelWidth), \(V.pixelHeight), \(V.byteCount), \
            \(V.blobSHA256), \(V.hasAlpha)) VALUES (?, ?, ?, ?, 'inside', 0, 'png', ?, ?, ?, ?, ?, ?, 0)
            """)
            .bind(.text(key.rawValue), .int(sourceID), .int(variant.width), .int(variant.scale),
                  .text(spec.options.tokens.joined(separator: "-")), .text(Processor.token(for: [])),
                  .int(variant.pixelSize.width), .int(variant.pixelSize.height), .int(variant.bytes.count), .text(hash))
            .run()
        let blob = url.appendingPathComponent(BundleFormat.objectPath(sha256: hash, format: .png))
        try FileManager.default.createDirectory(at: blob.deletingLastPathComponent(), withIntermediateDirectories: true)
        try variant.bytes.write(to: blob)
    }
}
