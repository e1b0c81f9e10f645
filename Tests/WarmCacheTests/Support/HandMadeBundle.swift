import Foundation
@testable import WarmCache

/// Writes a small bundle straight into SQLite and `objects/` (as a non-Swift writer could), for
/// reader tests that need real files without the builder: each source gets one square `inside`
/// JPEG variant per width (in points) and scale, whose blob holds `payload` bytes.
struct HandMadeBundle {
    struct Variant {
        var source: String
        var width: Int
        var scale: Int = 1
        var payload: Data
        /// Its pixel side: `width` points at `scale`.
        var pixels: Int { width * scale }
    }

    let url: URL
    var variants: [Variant] = []

    init(name: String = "Images") throws {
        url = FileManager.default.temporaryDirectory
            .appendingPathComponent("wc-handmade-\(UUID().uuidString)/\(name).warmcache")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    mutating func add(_ source: String, width: Int, scale: Int = 1, payload: String) {
        variants.append(Variant(source: source, width: width, scale: scale, payload: Data(payload.utf8)))
    }

    /// A stand-in content hash: 64 lowercase hex digits derived from the payload (not SHA-256;
    /// the reader never re-hashes).
    static func fakeHash(_ data: Data) -> String {
        var state: UInt64 = 0xcbf2_9ce4_8422_2325
        var hex = ""
        for round in 0..<4 {
            for byte in data { state = (state ^ UInt64(byte)) &* 0x100_0000_01b3 }
            state = (state ^ UInt64(round)) &* 0x100_0000_01b3
            hex += String(state, radix: 16).leftPadded(to: 16)
        }
        return hex
    }

    /// Writes the index and blobs; returns the bundle directory.
    @discardableResult
    func write() throws -> URL {
        let connection = try SQLiteConnection(path: url.appendingPathComponent(BundleFormat.indexFileName).path,
                                              readOnly: false)
        try connection.execute("PRAGMA application_id = \(BundleFormat.applicationID)")
        for statement in BundleFormat.schema { try connection.execute(statement) }
        try connection.execute("INSERT INTO meta VALUES ('format_major', '1'), ('format_minor', '0')")
        var ids: [String: Int] = [:]
        for variant in variants {
            let id = ids[variant.source] ?? ids.count + 1
            if ids[variant.source] == nil {
                ids[variant.source] = id
                let source = try connection.statement("INSERT INTO sources VALUES (?, ?, ?, 'jpeg', 1000, 1000, 1)")
                try source.bind(.int(id), .text(SourceIdentifier(variant.source).rawValue),
                                .text(Self.fakeHash(Data(variant.source.utf8)))).run()
            }
            let hash = Self.fakeHash(variant.payload)
            let spec = VariantSpec(width: variant.width, height: nil, scale: variant.scale, format: .jpeg)
            let key = VariantKey(source: SourceIdentifier(variant.source), spec: spec)
            let row = try connection.statement("""
                INSERT INTO variants VALUES (?, ?, ?, NULL, ?, 'inside', NULL, NULL, 0, 'jpeg', NULL, ?, ?, ?, ?, ?, ?, 0, NULL, NULL, NULL)
                """)
            try row.bind(.text(key.rawValue), .int(id), .int(variant.width), .int(variant.scale),
                         .text(spec.options.tokens.joined(separator: "-")), .text(Processor.token(for: [])),
                         .int(variant.pixels), .int(variant.pixels), .int(variant.payload.count), .text(hash)).run()
            let blob = url.appendingPathComponent(BundleFormat.objectPath(sha256: hash, format: .jpeg))
            try FileManager.default.createDirectory(at: blob.deletingLastPathComponent(),
                                                    withIntermediateDirectories: true)
            try variant.payload.write(to: blob)
        }
        return url
    }
}

private extension String {
    func leftPadded(to length: Int) -> String {
        String(repeating: "0", count: max(0, length - count)) + self
    }
}
