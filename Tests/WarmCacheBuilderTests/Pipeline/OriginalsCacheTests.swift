import Foundation
import Testing
import WarmCache
@testable import WarmCacheBuilder

/// The originals cache's records: what lets a re-warm revalidate a download instead of repeating it.
@Suite struct OriginalsCacheTests {
    static let identifier = SourceIdentifier(verbatim: "https://img.example.com/a b\tc.jpg?size=large")

    /// An original in place at its entry, and a record of it.
    static func saved(in cache: OriginalsCache, etag: String? = "\"5e8a-1f\"") throws
        -> (OriginalsCache.Entry, OriginalRecord) {
        let entry = cache.entry(for: identifier)
        let bytes = Data("original bytes".utf8)
        try DurableFile.ensureFolder(atPath: entry.folderPath)
        try DurableFile.write(bytes, toPath: entry.dataPath)
        let record = OriginalRecord(identifier: identifier.rawValue, sha256: ContentHash.sha256(bytes),
                                    byteCount: bytes.count, etag: etag, lastModified: "Tue, 03 Nov 2026 10:00:00 GMT",
                                    // Later than the record file's modification time, which would count as a
                                    // later confirmation.
                                    checkedAt: Date(timeIntervalSince1970: 4_102_444_800.369_242_8),
                                    stamp: cache.stamp(for: entry))
        return (entry, record)
    }

    @Test(arguments: [nil, "\"5e8a-1f\"", "W/\"tab\tinside\""])
    func aRecordReadsBackAsItWasSaved(etag: String?) throws {
        let cache = OriginalsCache(cacheDirectory: try BundleFixtures.temporaryDirectory("originals"))
        let (entry, record) = try Self.saved(in: cache, etag: etag)
        try cache.save(record, at: entry)
        let found = try #require(cache.validRecord(at: entry))
        #expect(found.record == record)
        #expect(found.isSaved, "a saved record with the original's stamp is confirmed, not rewritten")
        #expect(entry.recordPath.hasSuffix(".record"))
    }

    @Test func aRecordFromAnEarlierVersionIsReadAndReplacedOnSave() throws {
        let cache = OriginalsCache(cacheDirectory: try BundleFixtures.temporaryDirectory("originals"))
        let (entry, record) = try Self.saved(in: cache)
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        try DurableFile.write(try encoder.encode(record), toPath: entry.legacyRecordPath)
        let found = try #require(cache.validRecord(at: entry))
        #expect(found.record.sha256 == record.sha256 && found.record.etag == record.etag)
        #expect(!found.isSaved, "a legacy record is saved in the current format, not confirmed")
        try cache.save(found.record, at: entry)
        #expect(!FileManager.default.fileExists(atPath: entry.legacyRecordPath))
        #expect(cache.validRecord(at: entry)?.isSaved == true)
    }

    @Test(arguments: ["", "warm-cache original 1\nidentifier\tx", "warm-cache original 9\n", "{\"sha256\": 1}\n"])
    func aTornOrForeignRecordIsNone(text: String) throws {
        let cache = OriginalsCache(cacheDirectory: try BundleFixtures.temporaryDirectory("originals"))
        let (entry, record) = try Self.saved(in: cache)
        try cache.save(record, at: entry)
        try DurableFile.write(Data(text.utf8), toPath: entry.recordPath)
        #expect(cache.validRecord(at: entry) == nil)
    }

    @Test func aRecordWhoseOriginalChangedIsDiscarded() throws {
        let cache = OriginalsCache(cacheDirectory: try BundleFixtures.temporaryDirectory("originals"))
        let (entry, record) = try Self.saved(in: cache)
        try cache.save(record, at: entry)
        try DurableFile.write(Data("other bytes, same.....".utf8), toPath: entry.dataPath)
        #expect(cache.validRecord(at: entry) == nil)
        #expect(!FileManager.default.fileExists(atPath: entry.recordPath))
    }
}
