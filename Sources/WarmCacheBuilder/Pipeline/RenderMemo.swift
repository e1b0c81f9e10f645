import Foundation
import WarmCache
import WarmCacheImaging

/// Remembers what rendering one source produced, so an unchanged source is neither decoded
/// nor encoded again.
///
/// The memo is keyed by everything the output depends on: the source's identifier, the
/// original's SHA-256, the placeholders asked for, the engine settings, the WarmCache and
/// libvips versions, and whether libvips' vector paths are on (they round differently). An
/// entry holds the index rows the render produced: the source's row, its variants' rows, and
/// whether the original has alpha (so format `auto` resolves without reading the original). libvips renders all sizes of one source from one decode (a shrink
/// cascade), so a variant's bytes can depend on its siblings: an entry is reused only when the
/// plan asks for exactly its set of variant keys, and adding a preset re-encodes that source's
/// variants (only that source's).
///
/// Entries live at `renders/<aa>/<key>.json` in the cache directory, written without a flush: a
/// lost or torn entry only costs a re-render. An entry only counts if every blob it names is
/// still in the bundle's object store (the renderer checks).
struct RenderMemo: Sendable {
    let directory: URL

    init(cacheDirectory: URL) {
        directory = cacheDirectory.appendingPathComponent("renders", isDirectory: true)
    }

    struct Entry: Codable, Sendable {
        var source: BundleContents.Source
        var sourceHasAlpha: Bool
        /// Without presets (the plan names them).
        var variants: [BundleContents.Variant]
    }

    /// The memo key for one source's render.
    static func key(source: SourceIdentifier, originalSHA256: String, placeholders: PlaceholderKinds,
                    configuration: ImagingConfiguration) -> String {
        let lines = [
            "warm-cache render memo 2",
            "generator \(WarmCacheVersion.current)",
            "libvips \(ImagingEngine.libvipsVersion)",
            "vector paths \(ImagingRuntime.state?.vectorPathsEnabled.description ?? "not started")",
            "engine \(fingerprint(configuration))",
            "source \(source.rawValue)",
            "original \(originalSHA256)",
            "placeholders \(placeholders.rawValue)",
        ]
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
        let url = url(for: key)
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        let temporary = url.appendingPathExtension("\(UUID().uuidString).tmp")
        try DurableFile.write(try JSONEncoder().encode(entry), to: temporary, flush: false)
        try DurableFile.move(temporary, to: url)
    }

    private func url(for key: String) -> URL {
        directory.appendingPathComponent(String(key.prefix(2)), isDirectory: true)
            .appendingPathComponent("\(key).json")
    }
}
