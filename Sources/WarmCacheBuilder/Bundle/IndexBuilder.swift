import Foundation
import WarmCache

/// Writes `index.sqlite` for a ``BundleContents`` into a fresh file, in one transaction.
///
/// Determinism: rows are inserted in sorted order (sources by identifier, variants by key,
/// presets by name), source ids are assigned in that order, and no clock value is written
/// unless `createdAt` is set. The same contents therefore give a byte-identical file with the
/// same SQLite library version.
struct IndexBuilder {
    let generator: String

    func write(_ contents: BundleContents, to path: String) throws {
        let connection = try SQLiteConnection(path: path, readOnly: false)
        try connection.execute("""
            PRAGMA journal_mode = OFF;
            PRAGMA synchronous = OFF;
            PRAGMA page_size = 4096;
            PRAGMA application_id = \(BundleFormat.applicationID);
            """)
        try connection.transaction {
            for statement in BundleFormat.schema {
                try connection.execute(statement)
            }
            try writeMeta(contents, connection)
            let ids = try writeSources(contents.sources, connection)
            try writeVariants(contents.variants, ids: ids, connection)
        }
        connection.finalizeStatements()
        try connection.execute("PRAGMA optimize")
    }

    private func writeMeta(_ contents: BundleContents, _ connection: SQLiteConnection) throws {
        var meta: [(String, String)] = [
            (BundleFormat.MetaKey.formatMajor, String(BundleFormat.majorVersion)),
            (BundleFormat.MetaKey.formatMinor, String(BundleFormat.minorVersion)),
            (BundleFormat.MetaKey.generator, generator),
            (BundleFormat.MetaKey.sourceCount, String(contents.sources.count)),
            (BundleFormat.MetaKey.variantCount, String(contents.variants.count)),
        ]
        if let fingerprint = contents.manifestFingerprint {
            meta.append((BundleFormat.MetaKey.manifestFingerprint, fingerprint))
        }
        if let shard = contents.shard {
            meta.append((BundleFormat.MetaKey.shard, shard.description))
        }
        if let createdAt = contents.createdAt {
            meta.append((BundleFormat.MetaKey.createdAt, ISO8601DateFormatter().string(from: createdAt)))
        }
        let statement = try connection.statement("INSERT INTO meta (key, value) VALUES (?, ?)")
        for (key, value) in meta.sorted(by: { $0.0 < $1.0 }) {
            try statement.reset()
            try statement.bind(.text(key), .text(value)).run()
        }
    }

    private func writeSources(_ sources: [BundleContents.Source],
                              _ connection: SQLiteConnection) throws -> [SourceIdentifier: Int] {
        let insertSource = try connection.statement("""
            INSERT INTO sources (id, source, content_sha256, format, pixel_width, pixel_height, byte_count)
            VALUES (?, ?, ?, ?, ?, ?, ?)
            """)
        let insertPlaceholder = try connection.statement(
            "INSERT INTO placeholders (source_id, thumbhash, blurhash, average_color) VALUES (?, ?, ?, ?)")
        var ids: [SourceIdentifier: Int] = [:]
        for (offset, source) in sources.sorted(by: { $0.identifier < $1.identifier }).enumerated() {
            let id = offset + 1
            ids[source.identifier] = id
            try insertSource.reset()
            try insertSource.bind(.int(id), .text(source.identifier.rawValue), .text(source.contentSHA256),
                                  .text(source.format), .int(source.pixelSize.width), .int(source.pixelSize.height),
                                  .int(source.byteCount)).run()
            if let placeholder = source.placeholder, !placeholder.isEmpty {
                try insertPlaceholder.reset()
                try insertPlaceholder.bind(.int(id), placeholder.thumbHash.map { .blob($0) } ?? .null,
                                           .string(placeholder.blurHash),
                                           .string(placeholder.averageColor?.hex)).run()
            }
        }
        return ids
    }

    private func writeVariants(_ variants: [BundleContents.Variant], ids: [SourceIdentifier: Int],
                               _ connection: SQLiteConnection) throws {
        let insertVariant = try connection.statement("""
            INSERT INTO variants (cache_key, source_id, width_pt, height_pt, scale, fit, gravity, background,
                upscale, format, quality, options, processors, pixel_width, pixel_height, byte_count,
                blob_sha256, has_alpha)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """)
        let insertPreset = try connection.statement("INSERT INTO variant_presets (preset, cache_key) VALUES (?, ?)")
        for variant in variants.sorted(by: { $0.key < $1.key }) {
            let spec = variant.key.spec
            guard let sourceID = ids[variant.key.source] else {
                throw IndexBuilderError.unknownSource(variant.key.rawValue)
            }
            try insertVariant.reset()
            try insertVariant.bind([
                .text(variant.key.rawValue), .int(sourceID), .int(spec.width), .int(spec.height), .int(spec.scale),
                .text(spec.fit.kind.rawValue), .string(spec.fit.gravity?.rawValue),
                .string(spec.fit.background?.hex), .int(spec.allowUpscale ? 1 : 0), .text(spec.format.rawValue),
                .int(spec.quality), .text(spec.options.tokens.joined(separator: "-")),
                .text(Processor.token(for: spec.processors)), .int(variant.pixelSize.width),
                .int(variant.pixelSize.height), .int(variant.byteCount), .text(variant.blobSHA256),
                .int(variant.hasAlpha ? 1 : 0),
            ]).run()
            for preset in Set(variant.presets).sorted() {
                try insertPreset.reset()
                try insertPreset.bind(.text(preset), .text(variant.key.rawValue)).run()
            }
        }
    }
}

enum IndexBuilderError: Error, CustomStringConvertible {
    case unknownSource(String)

    var description: String {
        switch self {
        case .unknownSource(let key): return "variant \(key) belongs to a source the contents do not list"
        }
    }
}
