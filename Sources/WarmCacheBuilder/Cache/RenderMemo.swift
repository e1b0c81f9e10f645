import Foundation
import WarmCache
import WarmCacheImaging

/// Remembers what rendering one source produced, so an unchanged source is neither decoded
/// nor encoded again.
///
/// A source's render is named by everything its output depends on, its *memo key*
/// (``key(source:originalSHA256:placeholders:)``): the source's identifier, the original's
/// SHA-256, the placeholders asked for, the engine settings, the WarmCache and libvips versions,
/// and whether libvips' vector paths are on (they round differently). An entry's key adds the
/// variants asked of that render (``entryKey(_:groups:)``); the entry holds the index rows the
/// render produced: the source's row, its variants' rows, and whether the original has alpha
/// (so format `auto` resolves without reading the original).
/// A variant's bytes depend on its own spec only (the decodes are a ladder of the source's own
/// sizes, and a quality search starts from a fixed guess), so re-rendering gives the same files;
/// still, an entry is reused only when the plan asks for exactly its list of variant keys, and
/// adding a preset renders that source again (only that source), to the same files for the
/// variants it had. Version 11 entries: earlier ones were rendered by a cascade and searches that
/// depended on their siblings, searched before the speed levels, resampled from ladder steps
/// made another way (halved by Lanczos, or a JPEG decoded once per step), wrote HEIC at 4:4:4
/// from quality 90 (now 4:2:0 unless asked), encoded AVIF with libaom's intra block copy (now
/// off), or stored an encoding larger than the source file whose pixels it kept (now the
/// source's own file), and are not reused.
///
/// **Several entries per source.** Two manifests that share a cache directory and ask other
/// variants of the same images (an app and its widget), or a run of a changed manifest that
/// published nothing (over budget, interrupted, killed), each leave their own entry beside the
/// others': warming the first manifest again finds its own, and its blobs still in its bundle.
/// A source keeps its ``entriesPerSource`` most recently saved entries (saving one drops the
/// oldest beyond that), so the records grow with the sources, not with the runs: entries of an
/// original that changed, or of settings no manifest asks for any more, age out as new ones
/// arrive. An entry whose blobs are gone from the bundle is a miss, and the render that follows
/// saves the fresh one under the same key, in its place.
///
/// Entries live in the cache directory's ``CacheRecords`` under their entry key, saved without a
/// flush: a lost or torn entry only costs a re-render. An entry only counts if every blob it
/// names is still in the bundle's object store (the renderer checks). An entry of the memo of
/// earlier versions (one per source, under its memo key) is still read, and moved to its entry
/// key once reused, so an upgrade re-encodes nothing.
///
/// A re-warm reads one entry per source, so an entry is a few tab-separated lines rather than
/// JSON (decoding JSON cost more than the rest of a reused source's work):
/// ```
/// warm-cache render memo 11
/// source      <original sha256> <format> <width> <height> <bytes> <has alpha: 0|1>
/// placeholder <thumbhash base64|-> <blurhash|-> <r,g,b,a|->
/// variant     <width> <height> <bytes> <blob sha256> <has alpha: 0|1> <blob file stamp|->
///             <encoder quality|-> <score|-> <variant key>
///             (quality `-` with a score: the source's own file was kept)
/// ```
/// (one `variant` line per requested variant, in the plan's order of candidate groups; for a
/// variant with a quality target, the quality its search found and the score, so a re-warm
/// searches nothing). A `formats: [smallest]` variant's key is whichever candidate won, which the
/// plan cannot know: its line matches any of its candidates' keys. The blob file's stamp (``FileStamp``: size,
/// inode, modification and change times) is the one it had when its bytes were last known to be
/// right: while the file still has it, a re-warm trusts the blob with one `lstat` instead of
/// reading and hashing it.
/// The source identifier is not stored (the memo key is derived from it), and the variant key
/// comes last so nothing in it needs escaping but a line break (an entry for such a key is not
/// written).
struct RenderMemo: Sendable {
    let records: CacheRecords
    /// The start of every key of this run: versions and engine settings (computed once, not per source).
    private let settings: String

    /// - Parameter vectorPaths: whether the process that renders runs libvips' vector paths.
    init(records: CacheRecords, configuration: ImagingConfiguration, vectorPaths: Bool) {
        self.records = records
        settings = [
            Self.header,
            "generator \(WarmCacheVersion.current)",
            "libvips \(ImagingEngine.libvipsVersion)",
            "avif \(ImagingEngine.avifEncoder)",
            "vector paths \(vectorPaths)",
            "placeholder thumbnail \(PlaceholderThumbnail.method)",
            "engine \(Self.fingerprint(configuration))",
        ].joined(separator: "\n")
    }

    struct Entry: Sendable {
        var source: BundleContents.Source
        var sourceHasAlpha: Bool
        /// Without presets (the plan names them), one per candidate group, in the plan's order.
        var variants: [BundleContents.Variant]
        /// Per variant, the stamp of its blob's file when its bytes were last known to be right.
        var blobStamps: [FileStamp?]
    }

    /// How many entries a source keeps (the most recently saved).
    static let entriesPerSource = 8

    /// The memo key for one source's render.
    func key(source: SourceIdentifier, originalSHA256: String, placeholders: PlaceholderKinds) -> String {
        let lines = settings + "\nsource \(source.rawValue)\noriginal \(originalSHA256)\nplaceholders \(placeholders.rawValue)"
        return ContentHash.sha256(Data(lines.utf8))
    }

    /// The key of the entry for the render `memoKey` names that gave the variants `groups` (per
    /// requested variant, its candidate keys, as the renderer resolved them for the original's
    /// alpha): one entry per list of variants asked.
    func entryKey(_ memoKey: String, groups: [[VariantKey]]) -> String {
        var text = memoKey
        for group in groups {
            text += "\n" + group.map(\.rawValue).joined(separator: "\t")
        }
        return ContentHash.sha256(Data(text.utf8))
    }

    /// The settings that change output bytes, in a stable order (dictionaries print in a
    /// per-process random order, so they are sorted here).
    private static func fingerprint(_ configuration: ImagingConfiguration) -> String {
        func sorted(_ values: [ImageFormat: Int]) -> String {
            values.map { "\($0.key.rawValue)=\($0.value)" }.sorted().joined(separator: ",")
        }
        let defaults = configuration.encoderDefaults
        return "cascade=\(configuration.cascade) fast-shrink-on-load=\(configuration.fastShrinkOnLoad) "
            + "quality=\(sorted(defaults.quality)) effort=\(sorted(defaults.effort)) progressive=\(defaults.progressive)"
    }

    /// The entry saved under `key` for `source`, if there is one and its variant lines match, in
    /// order, the candidate keys `keys` gives for the original's alpha (the keys of format `auto`
    /// depend on it): each line one of its group's keys.
    func load(_ key: String, source: SourceIdentifier, keys: (_ sourceHasAlpha: Bool) -> [[VariantKey]]) -> Entry? {
        records.render(key: key).flatMap { Self.decode($0, source: source, keys: keys) }
    }

    /// ``load(_:source:keys:)`` from the memo of earlier versions, by the memo key.
    func loadLegacy(_ memoKey: String, source: SourceIdentifier,
                    keys: (_ sourceHasAlpha: Bool) -> [[VariantKey]]) -> Entry? {
        records.legacyRender(key: memoKey).flatMap { Self.decode($0, source: source, keys: keys) }
    }

    /// Moves an entry of the earlier memo, reused, to its entry key.
    func moveLegacy(_ entry: Entry, from memoKey: String, to key: String) {
        try? save(entry, as: key)
        records.removeLegacyRender(key: memoKey)
    }

    private static func decode(_ data: Data, source: SourceIdentifier,
                               keys: (_ sourceHasAlpha: Bool) -> [[VariantKey]]) -> Entry? {
        // Parsed as bytes: splitting `String`s by `Character` costs more than reading the file.
        let bytes = [UInt8](data)
        let lines = bytes.split(separator: Self.newline)
        guard lines.count >= 3, lines[0].elementsEqual(Self.header.utf8) else { return nil }

        let fields = lines[1].split(separator: Self.tab, omittingEmptySubsequences: false)
        guard fields.count == 7, fields[0].elementsEqual("source".utf8), let width = Self.int(fields[3]),
              let height = Self.int(fields[4]), let byteCount = Self.int(fields[5]),
              let sourceHasAlpha = Self.flag(fields[6]), let placeholder = Self.placeholder(lines[2]) else { return nil }
        let expected = keys(sourceHasAlpha)
        guard lines.count - 3 == expected.count else { return nil }

        var variants: [BundleContents.Variant] = []
        var stamps: [FileStamp?] = []
        variants.reserveCapacity(expected.count)
        stamps.reserveCapacity(expected.count)
        for (row, group) in zip(lines.dropFirst(3), expected) {
            let fields = row.split(separator: Self.tab, maxSplits: 9, omittingEmptySubsequences: false)
            guard fields.count == 10, fields[0].elementsEqual("variant".utf8),
                  let key = group.first(where: { fields[9].elementsEqual($0.rawValue.utf8) }),
                  let width = Self.int(fields[1]), let height = Self.int(fields[2]),
                  let byteCount = Self.int(fields[3]), let hasAlpha = Self.flag(fields[5]) else { return nil }
            var perceptual: PerceptualEncoding?
            if key.spec.qualityTarget != nil {
                // No quality (`-`) with a score: the source's own file was kept.
                let quality = Self.int(fields[7])
                guard quality != nil || fields[7].elementsEqual("-".utf8),
                      let score = Double(Self.string(fields[8])) else { return nil }
                perceptual = PerceptualEncoding(quality: quality, score: score)
            }
            variants.append(BundleContents.Variant(
                key: key, pixelSize: PixelSize(width: width, height: height), byteCount: byteCount,
                blobSHA256: Self.string(fields[4]), hasAlpha: hasAlpha, perceptual: perceptual))
            stamps.append(FileStamp(text: Self.string(fields[6])))
        }
        let row = BundleContents.Source(
            identifier: source, contentSHA256: Self.string(fields[1]), format: Self.string(fields[2]),
            pixelSize: PixelSize(width: width, height: height), byteCount: byteCount,
            placeholder: placeholder.isEmpty ? nil : placeholder)
        return Entry(source: row, sourceHasAlpha: sourceHasAlpha, variants: variants, blobStamps: stamps)
    }

    /// Saves `entry` under its entry key `key` (dropping its source's oldest beyond ``entriesPerSource``).
    func save(_ entry: Entry, as key: String, at date: Date = Date()) throws {
        guard let data = Self.encode(entry) else { return }
        try records.saveRender(data, key: key, source: entry.source.identifier.rawValue,
                               keeping: Self.entriesPerSource, at: date)
    }

    private static let header = "warm-cache render memo 11"

    /// The entry as text, or `nil` if a field would break the line structure.
    private static func encode(_ entry: Entry) -> Data? {
        let source = entry.source
        let placeholder = source.placeholder ?? ImagePlaceholder()
        let colour = placeholder.averageColor.map { "\($0.red),\($0.green),\($0.blue),\($0.alpha)" }
        var lines = [
            header,
            ["source", source.contentSHA256, source.format, "\(source.pixelSize.width)", "\(source.pixelSize.height)",
             "\(source.byteCount)", entry.sourceHasAlpha ? "1" : "0"].joined(separator: "\t"),
            ["placeholder", placeholder.thumbHashBase64 ?? "-", placeholder.blurHash ?? "-", colour ?? "-"]
                .joined(separator: "\t"),
        ]
        for (index, variant) in entry.variants.enumerated() {
            let stamp = index < entry.blobStamps.count ? entry.blobStamps[index]?.text : nil
            lines.append(["variant", "\(variant.pixelSize.width)", "\(variant.pixelSize.height)", "\(variant.byteCount)",
                          variant.blobSHA256, variant.hasAlpha ? "1" : "0", stamp ?? "-",
                          variant.perceptual?.quality.map { String($0) } ?? "-",
                          variant.perceptual.map { String($0.score) } ?? "-", variant.key.rawValue]
                .joined(separator: "\t"))
        }
        let text = lines.joined(separator: "\n") + "\n"
        func isField(_ text: String) -> Bool { !text.contains(where: { $0 == "\t" || $0 == "\n" }) }
        let fieldsAreClean = isField(source.format) && placeholder.blurHash.map { $0 != "-" && isField($0) } ?? true
            && !entry.variants.contains(where: { $0.key.rawValue.contains("\n") })
        return fieldsAreClean ? Data(text.utf8) : nil
    }

    private static let newline = UInt8(ascii: "\n"), tab = UInt8(ascii: "\t"), none = UInt8(ascii: "-")

    private static func string(_ field: ArraySlice<UInt8>) -> String {
        String(decoding: field, as: UTF8.self)
    }

    /// A non-negative decimal number (what the memo writes), or `nil`.
    private static func int(_ field: ArraySlice<UInt8>) -> Int? {
        guard !field.isEmpty, field.count <= 18 else { return nil }
        var value = 0
        for byte in field {
            guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
            value = value * 10 + Int(byte - UInt8(ascii: "0"))
        }
        return value
    }

    private static func flag(_ field: ArraySlice<UInt8>) -> Bool? {
        guard field.count == 1 else { return nil }
        switch field.first {
        case UInt8(ascii: "1"): return true
        case UInt8(ascii: "0"): return false
        default: return nil
        }
    }

    private static func placeholder(_ line: ArraySlice<UInt8>) -> ImagePlaceholder? {
        let fields = line.split(separator: tab, omittingEmptySubsequences: false)
        guard fields.count == 4, fields[0].elementsEqual("placeholder".utf8) else { return nil }
        func isNone(_ field: ArraySlice<UInt8>) -> Bool { field.count == 1 && field.first == none }
        var placeholder = ImagePlaceholder()
        if !isNone(fields[1]) {
            guard let thumbHash = Data(base64Encoded: string(fields[1])) else { return nil }
            placeholder.thumbHash = thumbHash
        }
        if !isNone(fields[2]) {
            placeholder.blurHash = string(fields[2])
        }
        if !isNone(fields[3]) {
            let channels = fields[3].split(separator: UInt8(ascii: ",")).compactMap { int($0) }
            guard channels.count == 4, channels.allSatisfy({ $0 <= 255 }) else { return nil }
            placeholder.averageColor = RGBAColor(red: UInt8(channels[0]), green: UInt8(channels[1]),
                                                 blue: UInt8(channels[2]), alpha: UInt8(channels[3]))
        }
        return placeholder
    }
}
