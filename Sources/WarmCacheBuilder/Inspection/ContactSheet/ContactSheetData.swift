import Foundation
import WarmCache

/// What a contact sheet shows, as the compact JSON its script reads.
///
/// Rows are arrays rather than objects, and strings shared by many rows (formats, presets) are
/// written once and referred to by index, so that 10,000 sources stay a few megabytes:
///
/// ```
/// sources:  [identifier, format, width, height, bytes, thumbhash (base64) | "", blurhash | "",
///            average colour (rrggbb[aa]) | "", [variant…], key source field | null]
/// variant:  [key after the source field, format index, width, height, bytes, blob sha256,
///            [preset index…]]
/// failures: [identifier, location, listed at, reason]
/// ```
///
/// A variant's full cache key is the source's key field (the identifier unless its key escapes
/// characters) + `|` + the stored tail; its image is `objects + sha[0..2] + "/" + sha + "." + ext`.
struct ContactSheetData: Encodable {
    /// The version of this JSON's shape, under the key every JSON output uses (docs/json.md).
    static let version = 2

    struct Summary: Encodable {
        var path = ""
        var generator = ""
        var formatVersion = ""
        var sources = 0
        var variants = 0
        var files = 0
        var bytes = 0
        var originalBytes = 0
        var placeholders = 0
        /// Why the run wrote no bundle (when it wrote none): the run's own message.
        var whyNoBundle = ""
    }

    struct Source: Encodable {
        var identifier: String
        var format: String
        var width: Int
        var height: Int
        var bytes: Int
        var thumbHash: String
        var blurHash: String
        var averageColor: String
        var variants: [Variant] = []
        /// The key's source field when it differs from the identifier (escaped characters).
        var keySource: String?

        func encode(to encoder: Encoder) throws {
            var row = encoder.unkeyedContainer()
            try row.encode(identifier)
            try row.encode(format)
            try row.encode(width)
            try row.encode(height)
            try row.encode(bytes)
            try row.encode(thumbHash)
            try row.encode(blurHash)
            try row.encode(averageColor)
            try row.encode(variants)
            if let keySource { try row.encode(keySource) } else { try row.encodeNil() }
        }
    }

    struct Variant: Encodable {
        var keyTail: String
        var format: Int
        var width: Int
        var height: Int
        var bytes: Int
        var sha256: String
        var presets: [Int]

        func encode(to encoder: Encoder) throws {
            var row = encoder.unkeyedContainer()
            try row.encode(keyTail)
            try row.encode(format)
            try row.encode(width)
            try row.encode(height)
            try row.encode(bytes)
            try row.encode(sha256)
            try row.encode(presets)
        }
    }

    /// `[name, variants, bytes]`.
    struct Group: Encodable {
        var group: BundleReport.Group

        func encode(to encoder: Encoder) throws {
            var row = encoder.unkeyedContainer()
            try row.encode(group.name)
            try row.encode(group.variants)
            try row.encode(group.bytes)
        }
    }

    var summary = Summary()
    /// The bundle's `objects/` folder relative to the page, URL-escaped, ending in `/`.
    var objects = ""
    var formats: [String] = []
    /// The blob file extension of each entry of `formats`.
    var extensions: [String] = []
    var presets: [String] = []
    var byFormat: [Group] = []
    var byPreset: [Group] = []
    var sources: [Source] = []
    var failures: [ContactSheet.Failure] = []

    enum CodingKeys: String, CodingKey {
        case reportVersion, summary, objects, formats, extensions, presets, byFormat, byPreset, sources, failures
    }

    func encode(to encoder: Encoder) throws {
        var object = encoder.container(keyedBy: CodingKeys.self)
        try object.encode(Self.version, forKey: .reportVersion)
        try object.encode(summary, forKey: .summary)
        try object.encode(objects, forKey: .objects)
        try object.encode(formats, forKey: .formats)
        try object.encode(extensions, forKey: .extensions)
        try object.encode(presets, forKey: .presets)
        try object.encode(byFormat, forKey: .byFormat)
        try object.encode(byPreset, forKey: .byPreset)
        try object.encode(sources, forKey: .sources)
        var rows = object.nestedUnkeyedContainer(forKey: .failures)
        for failure in failures {
            try rows.encode([failure.identifier, failure.location, failure.listedAt, failure.reason])
        }
    }

    /// Reads everything the page shows from the bundle's index.
    /// - Parameter link: the bundle folder relative to the page, URL-escaped, ending in `/`.
    static func read(bundleURL: URL, link: String) throws -> ContactSheetData {
        let report = try BundleInspector(bundleURL: bundleURL).report(largest: 0)
        var data = ContactSheetData()
        data.summary = Summary(path: report.path, generator: report.generator, formatVersion: report.formatVersion,
                               sources: report.sources, variants: report.variants, files: report.blobs,
                               bytes: report.blobBytes, originalBytes: report.sourceBytes,
                               placeholders: report.placeholders)
        data.objects = link + BundleFormat.objectsDirectoryName + "/"
        data.byFormat = report.byFormat.map(Group.init)
        data.byPreset = report.byPreset.map(Group.init)

        typealias S = IndexSchema.Sources
        typealias V = IndexSchema.Variants
        typealias P = IndexSchema.VariantPresets
        typealias PH = IndexSchema.Placeholders
        let bundle = try CacheBundle(contentsOf: bundleURL)
        try bundle.query { connection in
            var formatIndex: [String: Int] = [:]
            var presetIndex: [String: Int] = [:]
            func index(_ name: String, in table: inout [String: Int], list: inout [String]) -> Int {
                if let index = table[name] { return index }
                list.append(name)
                table[name] = list.count - 1
                return list.count - 1
            }

            var presetsByKey: [String: [Int]] = [:]
            let presets = try connection.statement(
                "SELECT \(P.preset), \(P.cacheKey) FROM \(P.table) ORDER BY \(P.preset)")
            while try presets.step() {
                let preset = index(presets.text(P.preset), in: &presetIndex, list: &data.presets)
                presetsByKey[presets.text(P.cacheKey), default: []].append(preset)
            }

            var rowBySourceID: [Int: Int] = [:]
            let sources = try connection.statement("""
                SELECT s.\(S.id), s.\(S.source), s.\(S.format), s.\(S.pixelWidth), s.\(S.pixelHeight), s.\(S.byteCount),
                       p.\(PH.thumbhash), p.\(PH.blurhash), p.\(PH.averageColor)
                FROM \(S.table) s LEFT JOIN \(PH.table) p ON p.\(PH.sourceID) = s.\(S.id) ORDER BY s.\(S.source)
                """)
            while try sources.step() {
                rowBySourceID[sources.int(S.id)] = data.sources.count
                data.sources.append(Source(
                    identifier: sources.text(S.source), format: sources.text(S.format), width: sources.int(S.pixelWidth),
                    height: sources.int(S.pixelHeight), bytes: sources.int(S.byteCount),
                    thumbHash: sources.blob(PH.thumbhash)?.base64EncodedString() ?? "",
                    blurHash: sources.optionalText(PH.blurhash) ?? "",
                    averageColor: sources.optionalText(PH.averageColor) ?? ""))
            }

            let variants = try connection.statement("""
                SELECT \(V.sourceID), \(V.cacheKey), \(V.format), \(V.pixelWidth), \(V.pixelHeight), \(V.byteCount),
                    \(V.blobSHA256)
                FROM \(V.table) ORDER BY \(V.sourceID), \(V.cacheKey)
                """)
            while try variants.step() {
                guard let row = rowBySourceID[variants.int(V.sourceID)] else { continue }
                let key = variants.text(V.cacheKey)
                let format = variants.text(V.format)
                if formatIndex[format] == nil {
                    data.extensions.append(ImageFormat(rawValue: format)?.fileExtension ?? format)
                }
                let formatNumber = index(format, in: &formatIndex, list: &data.formats)
                // The key's source field ends at its first `|` (the field escapes its own `|`).
                let split = key.firstIndex(of: "|") ?? key.endIndex
                let keySource = String(key[..<split])
                if keySource != data.sources[row].identifier {
                    data.sources[row].keySource = keySource
                }
                data.sources[row].variants.append(Variant(
                    keyTail: split < key.endIndex ? String(key[key.index(after: split)...]) : "",
                    format: formatNumber,
                    width: variants.int(V.pixelWidth), height: variants.int(V.pixelHeight),
                    bytes: variants.int(V.byteCount), sha256: variants.text(V.blobSHA256),
                    presets: presetsByKey[key] ?? []))
            }
        }
        return data
    }
}
