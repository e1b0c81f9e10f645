import Foundation
import WarmCache
import WarmCacheImaging

/// Remembers what rendering one source produced, so an unchanged source is not encoded again.
///
/// The memo is keyed by everything the output depends on: the original's SHA-256, the resolved
/// spec of every variant of the source, the placeholders asked for, the engine settings, the
/// WarmCache and libvips versions. libvips renders all sizes of one source from one decode
/// (a shrink cascade), so a variant's bytes can depend on its siblings: the key covers the
/// whole source, and adding a preset re-encodes that source's variants (only that source's).
///
/// Records live at `renders/<aa>/<key>.json` in the cache directory. A memo only counts if
/// every blob it names is still in the bundle's object store.
struct RenderMemo: Sendable {
    let directory: URL

    init(cacheDirectory: URL) {
        directory = cacheDirectory.appendingPathComponent("renders", isDirectory: true)
    }

    struct Entry: Codable, Sendable, Equatable {
        struct Variant: Codable, Sendable, Equatable {
            var cacheKey: String
            var pixelWidth: Int
            var pixelHeight: Int
            var hasAlpha: Bool
            var byteCount: Int
            var blobSHA256: String
        }

        var sourceFormat: String
        var sourcePixelWidth: Int
        var sourcePixelHeight: Int
        var variants: [Variant]
        var placeholder: ImagePlaceholder?
    }

    /// The memo key for one source's render.
    static func key(originalSHA256: String, keys: [VariantKey], placeholders: PlaceholderKinds,
                    configuration: ImagingConfiguration) -> String {
        var lines = [
            "warm-cache render memo 1",
            "generator \(WarmCacheVersion.current)",
            "libvips \(ImagingEngine.libvipsVersion)",
            "engine \(fingerprint(configuration))",
            "original \(originalSHA256)",
            "placeholders \(placeholders.rawValue)",
        ]
        lines += keys.map(\.rawValue).sorted()
        return ContentHash.sha256(Data(lines.joined(separator: "\n").utf8))
    }

    /// The settings that change output bytes, in a stable order (dictionaries print in a
    /// per-process random order, so they are sorted here).
    private static func fingerprint(_ configuration: ImagingConfiguration) -> String {
        func sorted(_ values: [ImageFormat: Int]) -> String {
            values.map { "\($0.key.rawValue)=\($0.value)" }.sorted().joined(separator: ",")
        }
        let defaults = configuration.encoderDefaults
        return "cascade=\(configuration.cascade) quality=\(sorted(defaults.quality)) effort=\(sorted(defaults.effort)) "
            + "progressive=\(defaults.progressive)"
    }

    func load(_ key: String) -> Entry? {
        guard let data = try? Data(contentsOf: url(for: key)) else { return nil }
        return try? JSONDecoder().decode(Entry.self, from: data)
    }

    func save(_ entry: Entry, as key: String) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let url = url(for: key)
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        let temporary = url.appendingPathExtension("\(UUID().uuidString).tmp")
        try DurableFile.write(try encoder.encode(entry), to: temporary)
        try DurableFile.replace(url, with: temporary)
    }

    private func url(for key: String) -> URL {
        directory.appendingPathComponent(String(key.prefix(2)), isDirectory: true)
            .appendingPathComponent("\(key).json")
    }
}
