import Foundation
import WarmCache

/// One bundle given to `warm-cache merge`, read in full: what its `meta` says and every row.
struct BundlePart {
    let url: URL
    let formatVersion: String
    let generator: String
    let fingerprint: String?
    let shard: Shard?
    let sources: [BundleContents.Source]
    let variants: [BundleContents.Variant]

    /// The path as the user gave it, for messages.
    var name: String { url.path }

    init(url: URL) throws(BundleMergeError) {
        self.url = url
        let bundle: CacheBundle
        do {
            bundle = try CacheBundle(contentsOf: url)
        } catch {
            throw BundleMergeError(.unreadablePart, "cannot merge \(url.path): \(error)")
        }
        formatVersion = "\(bundle.info.formatMajor).\(bundle.info.formatMinor)"
        generator = bundle.info.generator
        do {
            let (meta, sources, variants) = try bundle.query { connection in
                (try BundlePart.meta(connection), try BundlePart.sources(connection),
                 try BundlePart.variants(connection, part: url))
            }
            fingerprint = meta[BundleFormat.MetaKey.manifestFingerprint]
            shard = try meta[BundleFormat.MetaKey.shard].map { text throws(BundleMergeError) in
                do {
                    return try Shard(parsing: text)
                } catch {
                    throw BundleMergeError(.unreadablePart, "cannot merge \(url.path): its shard '\(text)' is not I/N")
                }
            }
            self.sources = sources
            self.variants = variants
        } catch let error as BundleMergeError {
            throw error
        } catch {
            throw BundleMergeError(.unreadablePart, "cannot merge \(url.path): its index cannot be read: \(error)")
        }
    }

    private static func meta(_ connection: SQLiteConnection) throws -> [String: String] {
        let statement = try connection.statement("SELECT key, value FROM meta")
        var meta: [String: String] = [:]
        while try statement.step() {
            meta[statement.text(0)] = statement.text(1)
        }
        return meta
    }

    private static func sources(_ connection: SQLiteConnection) throws -> [BundleContents.Source] {
        let statement = try connection.statement("""
            SELECT s.source, s.content_sha256, s.format, s.pixel_width, s.pixel_height, s.byte_count,
                   p.thumbhash, p.blurhash, p.average_color
            FROM sources s LEFT JOIN placeholders p ON p.source_id = s.id
            """)
        var sources: [BundleContents.Source] = []
        while try statement.step() {
            let placeholder = ImagePlaceholder(thumbHash: statement.blob(6), blurHash: statement.optionalText(7),
                                               averageColor: statement.optionalText(8).flatMap(RGBAColor.init(hex:)))
            sources.append(BundleContents.Source(
                identifier: SourceIdentifier(verbatim: statement.text(0)), contentSHA256: statement.text(1),
                format: statement.text(2),
                pixelSize: PixelSize(width: statement.int(3), height: statement.int(4)),
                byteCount: statement.int(5), placeholder: placeholder.isEmpty ? nil : placeholder))
        }
        return sources
    }

    private static func variants(_ connection: SQLiteConnection, part: URL) throws -> [BundleContents.Variant] {
        // Presets joined with a separator no preset name contains (an ASCII record separator).
        let statement = try connection.statement("""
            SELECT v.cache_key, v.pixel_width, v.pixel_height, v.byte_count, v.blob_sha256, v.has_alpha,
                   (SELECT group_concat(p.preset, char(30)) FROM variant_presets p WHERE p.cache_key = v.cache_key)
            FROM variants v
            """)
        var variants: [BundleContents.Variant] = []
        while try statement.step() {
            let text = statement.text(0)
            guard let key = VariantKey(parsing: text) else {
                throw BundleMergeError(.unreadablePart, "cannot merge \(part.path): its variant key '\(text)' "
                    + "is not canonical (run warm-cache verify on it)")
            }
            let presets = statement.optionalText(6).map { $0.split(separator: "\u{1E}").map(String.init) } ?? []
            variants.append(BundleContents.Variant(
                key: key, pixelSize: PixelSize(width: statement.int(1), height: statement.int(2)),
                byteCount: statement.int(3), blobSHA256: statement.text(4), hasAlpha: statement.int(5) != 0,
                presets: presets))
        }
        return variants
    }
}
