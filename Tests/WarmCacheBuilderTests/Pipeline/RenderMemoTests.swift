import Foundation
import Testing
import WarmCache
import WarmCacheImaging
@testable import WarmCacheBuilder

/// The render memo's entries: what a re-warm reads back instead of decoding and encoding again.
@Suite struct RenderMemoTests {
    static let source = SourceIdentifier(verbatim: "https://img.example.com/a b\tc.jpg?size=large")

    static func keys(alpha: Bool) -> [VariantKey] {
        let format: ImageFormat = alpha ? .png : .jpeg
        return [1, 2].map {
            VariantKey(source: source, spec: VariantSpec(width: 64, height: 64, scale: $0, format: format))
        }.sorted()
    }

    static func entry(alpha: Bool, placeholder: ImagePlaceholder?) -> RenderMemo.Entry {
        let variants = keys(alpha: alpha).enumerated().map { index, key in
            BundleContents.Variant(key: key, pixelSize: PixelSize(width: 64 * (index + 1), height: 48 * (index + 1)),
                                   byteCount: 1000 + index, blobSHA256: String(repeating: "\(index)", count: 64),
                                   hasAlpha: alpha)
        }
        let row = BundleContents.Source(identifier: source, contentSHA256: String(repeating: "f", count: 64),
                                        format: "jpeg", pixelSize: PixelSize(width: 320, height: 240),
                                        byteCount: 20_510, placeholder: placeholder)
        // One blob with the stamp its file had, one whose stamp is unknown (hashed on reuse).
        let stamp = FileStamp(size: 1000, inode: 1_834_411, modifiedSeconds: 1_795_620_258, modifiedNanoseconds: 369_242_887,
                              changedSeconds: 1_795_620_259, changedNanoseconds: 7)
        return RenderMemo.Entry(source: row, sourceHasAlpha: alpha, variants: variants,
                                blobStamps: variants.indices.map { $0 == 0 ? stamp : nil })
    }

    @Test(arguments: [
        nil,
        ImagePlaceholder(thumbHash: Data([0x20, 0x08, 0x06, 0xff, 0x00])),
        ImagePlaceholder(thumbHash: Data([1, 2, 3]), blurHash: "LEHV6nWB2yk8pyo0adR*.7kCMdnj",
                         averageColor: RGBAColor(red: 147, green: 0, blue: 255, alpha: 128)),
    ])
    func anEntryReadsBackAsItWasSaved(placeholder: ImagePlaceholder?) throws {
        let directory = try BundleFixtures.temporaryDirectory("memo")
        let memo = RenderMemo(records: try CacheRecords(cacheDirectory: directory), configuration: ImagingConfiguration(),
                              vectorPaths: false)
        for alpha in [false, true] {
            let saved = Self.entry(alpha: alpha, placeholder: placeholder)
            try memo.save(saved, as: "ab\(alpha)")
            var askedAbout: Bool?
            let loaded = try #require(memo.load("ab\(alpha)", source: Self.source, keys: {
                askedAbout = $0
                return Self.keys(alpha: $0).map { [$0] }
            }))
            #expect(askedAbout == alpha)
            #expect(loaded.source == saved.source)
            #expect(loaded.sourceHasAlpha == alpha)
            #expect(loaded.variants == saved.variants)
            #expect(loaded.blobStamps == saved.blobStamps)
        }
    }

    /// A searched variant's record reads back, and so does one that kept the source's own file
    /// (no encoder quality, score 100).
    @Test func perceptualRecordsReadBack() throws {
        let directory = try BundleFixtures.temporaryDirectory("memo")
        let memo = RenderMemo(records: try CacheRecords(cacheDirectory: directory), configuration: ImagingConfiguration(),
                              vectorPaths: false)
        let keys = [1, 2].map {
            VariantKey(source: Self.source, spec: VariantSpec(width: 64, height: 64, scale: $0, format: .jpeg,
                                                              qualityTarget: 80))
        }.sorted()
        var saved = Self.entry(alpha: false, placeholder: nil)
        for (index, key) in keys.enumerated() {
            saved.variants[index].key = key
            saved.variants[index].perceptual = index == 0 ? PerceptualEncoding(quality: 63, score: 81.5) : .sourceKept
        }
        try memo.save(saved, as: "perceptual")
        let loaded = try #require(memo.load("perceptual", source: Self.source, keys: { _ in keys.map { [$0] } }))
        #expect(loaded.variants == saved.variants)
        #expect(loaded.variants.map(\.perceptual) == [PerceptualEncoding(quality: 63, score: 81.5), .sourceKept])
    }

    @Test func anEntryCountsOnlyForExactlyItsKeys() throws {
        let directory = try BundleFixtures.temporaryDirectory("memo")
        let memo = RenderMemo(records: try CacheRecords(cacheDirectory: directory), configuration: ImagingConfiguration(),
                              vectorPaths: false)
        try memo.save(Self.entry(alpha: false, placeholder: nil), as: "cd01")
        let keys = Self.keys(alpha: false)
        #expect(memo.load("cd01", source: Self.source, keys: { _ in keys.map { [$0] } }) != nil)
        #expect(memo.load("cd01", source: Self.source, keys: { _ in keys.prefix(1).map { [$0] } }) == nil)
        #expect(memo.load("cd01", source: Self.source, keys: { _ in keys.reversed().map { [$0] } }) == nil)
        let other = SourceIdentifier(verbatim: "https://img.example.com/other.jpg")
        let otherKeys = keys.map { VariantKey(source: other, spec: $0.spec) }
        #expect(memo.load("cd01", source: other, keys: { _ in otherKeys.map { [$0] } }) == nil)
        #expect(memo.load("cd02", source: Self.source, keys: { _ in keys.map { [$0] } }) == nil)
    }

    @Test func aTornOrForeignEntryIsAMiss() throws {
        let directory = try BundleFixtures.temporaryDirectory("memo")
        let memo = RenderMemo(records: try CacheRecords(cacheDirectory: directory), configuration: ImagingConfiguration(),
                              vectorPaths: false)
        try memo.save(Self.entry(alpha: false, placeholder: ImagePlaceholder(thumbHash: Data([9]))), as: "ef01")
        let whole = try #require(memo.records.render(key: "ef01"))
        let keys = Self.keys(alpha: false)
        for cut in stride(from: 0, to: whole.count - 1, by: 7) {
            try memo.records.saveRender(whole.prefix(cut), key: "ef01", source: Self.source.rawValue, keeping: 8)
            #expect(memo.load("ef01", source: Self.source, keys: { _ in keys.map { [$0] } }) == nil, "cut at \(cut)")
        }
        try memo.records.saveRender(Data("{\"source\": {}}".utf8), key: "ef01", source: Self.source.rawValue, keeping: 8)
        #expect(memo.load("ef01", source: Self.source, keys: { _ in keys.map { [$0] } }) == nil)
    }

    /// Two lists of variants of one render (an app's manifest and its widget's) each keep their
    /// entry; a source keeps its most recently saved few, whatever the runs.
    @Test func aSourceKeepsAnEntryPerListOfVariantsUpToItsMostRecentFew() throws {
        let directory = try BundleFixtures.temporaryDirectory("memo")
        let memo = RenderMemo(records: try CacheRecords(cacheDirectory: directory), configuration: ImagingConfiguration(),
                              vectorPaths: false)
        let memoKey = memo.key(source: Self.source, originalSHA256: String(repeating: "f", count: 64), placeholders: [])
        let app = Self.keys(alpha: false).map { [$0] }
        let widget = Array(app.prefix(1))
        let appKey = memo.entryKey(memoKey, groups: app), widgetKey = memo.entryKey(memoKey, groups: widget)
        #expect(appKey != widgetKey)
        var widgetEntry = Self.entry(alpha: false, placeholder: nil)
        widgetEntry.variants.removeLast()
        widgetEntry.blobStamps.removeLast()
        let start = Date(timeIntervalSince1970: 1_800_000_000)
        try memo.save(Self.entry(alpha: false, placeholder: nil), as: appKey, at: start)
        try memo.save(widgetEntry, as: widgetKey, at: start + 1)
        #expect(memo.load(appKey, source: Self.source, keys: { _ in app }) != nil)
        #expect(memo.load(widgetKey, source: Self.source, keys: { _ in widget }) != nil)

        // Ten more lists saved later: the source keeps its eight most recent, the first ones age out.
        for index in 0..<10 {
            try memo.records.saveRender(Data("entry \(index)".utf8), key: "later\(index)", source: Self.source.rawValue,
                                        keeping: RenderMemo.entriesPerSource, at: start + 10 + Double(index))
        }
        #expect(memo.records.renderCount(source: Self.source.rawValue) == RenderMemo.entriesPerSource)
        #expect(memo.records.render(key: appKey) == nil && memo.records.render(key: widgetKey) == nil)
        #expect(memo.records.render(key: "later9") != nil && memo.records.render(key: "later1") == nil)
        // Another source's entries are not counted against this one's.
        try memo.records.saveRender(Data("x".utf8), key: "other", source: "https://img.example.com/other.jpg",
                                    keeping: RenderMemo.entriesPerSource)
        #expect(memo.records.renderCount(source: Self.source.rawValue) == RenderMemo.entriesPerSource)
    }

    /// A cache directory an earlier version wrote holds one entry per source under its memo key:
    /// it is still read, and once reused moved to its entry key, so an upgrade re-encodes nothing.
    @Test func anEntryOfTheEarlierOnePerSourceMemoIsReadAndMoved() throws {
        let directory = try BundleFixtures.temporaryDirectory("memo")
        let memo = RenderMemo(records: try CacheRecords(cacheDirectory: directory), configuration: ImagingConfiguration(),
                              vectorPaths: false)
        let memoKey = memo.key(source: Self.source, originalSHA256: String(repeating: "f", count: 64), placeholders: [])
        let groups = Self.keys(alpha: false).map { [$0] }
        let entryKey = memo.entryKey(memoKey, groups: groups)
        let saved = Self.entry(alpha: false, placeholder: nil)
        try memo.save(saved, as: entryKey)
        let text = try #require(memo.records.render(key: entryKey))
        let connection = try SQLiteConnection(path: memo.records.path, readOnly: false)
        try connection.execute("DELETE FROM render_entries")
        try connection.statement("INSERT INTO renders (key, entry) VALUES (?1, ?2)").bind(.text(memoKey), .blob(text)).run()
        connection.close()

        #expect(memo.load(entryKey, source: Self.source, keys: { _ in groups }) == nil)
        let legacy = try #require(memo.loadLegacy(memoKey, source: Self.source, keys: { _ in groups }))
        #expect(legacy.variants == saved.variants)
        memo.moveLegacy(legacy, from: memoKey, to: entryKey)
        #expect(memo.load(entryKey, source: Self.source, keys: { _ in groups })?.variants == saved.variants)
        #expect(memo.records.legacyRender(key: memoKey) == nil)
    }
}
