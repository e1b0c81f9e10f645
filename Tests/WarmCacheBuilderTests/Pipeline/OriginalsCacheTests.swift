import Foundation
import Testing
import WarmCache
@testable import WarmCacheBuilder

/// The originals cache's records: what lets a re-warm revalidate a download instead of repeating it.
@Suite struct OriginalsCacheTests {
    static let identifier = SourceIdentifier(verbatim: "https://img.example.com/a b\tc.jpg?size=large")

    static func cache(in directory: URL) throws -> OriginalsCache {
        OriginalsCache(cacheDirectory: directory, records: try CacheRecords(cacheDirectory: directory))
    }

    /// Saves many records in one transaction (saved one by one, each would be a commit).
    static func saveOriginals(_ originals: [(name: String, record: Data)], in directory: URL) throws {
        let connection = try SQLiteConnection(path: directory.appendingPathComponent(CacheRecords.fileName).path,
                                              readOnly: false)
        defer { connection.close() }
        try connection.transaction {
            for original in originals {
                try connection.statement("INSERT OR REPLACE INTO originals (name, record) VALUES (?1, ?2)")
                    .bind(.text(original.name), .blob(original.record)).run()
            }
        }
    }

    /// An original in place at its entry, and a record of it.
    static func saved(in cache: OriginalsCache, etag: String? = "\"5e8a-1f\"") throws
        -> (OriginalsCache.Entry, OriginalRecord) {
        let entry = cache.entry(for: identifier)
        let bytes = Data("original bytes".utf8)
        try DurableFile.ensureFolder(atPath: entry.folderPath)
        try DurableFile.write(bytes, toPath: entry.dataPath)
        let record = OriginalRecord(identifier: identifier.rawValue, sha256: ContentHash.sha256(bytes),
                                    byteCount: bytes.count, etag: etag, lastModified: "Tue, 03 Nov 2026 10:00:00 GMT",
                                    checkedAt: Date(timeIntervalSince1970: 1_795_620_258.369_242_8),
                                    stamp: cache.stamp(for: entry))
        return (entry, record)
    }

    @Test(arguments: [nil, "\"5e8a-1f\"", "W/\"tab\tinside\""])
    func aRecordReadsBackAsItWasSaved(etag: String?) throws {
        let directory = try BundleFixtures.temporaryDirectory("originals")
        let cache = try Self.cache(in: directory)
        let (entry, record) = try Self.saved(in: cache, etag: etag)
        try cache.save(record, at: entry)
        let found = try #require(cache.validRecord(at: entry))
        #expect(found.record == record)
        #expect(found.isSaved, "a saved record with the original's stamp is confirmed, not rewritten")
        // And by another run, which opens the records anew.
        #expect(try Self.cache(in: directory).validRecord(at: entry)?.record == record)
    }

    @Test func aConfirmationMovesCheckedAtWithoutRewritingTheRecord() throws {
        let cache = try Self.cache(in: try BundleFixtures.temporaryDirectory("originals"))
        let (entry, record) = try Self.saved(in: cache)
        try cache.save(record, at: entry)
        let before = Date()
        try cache.confirm(entry)
        try cache.records.flush()
        let found = try #require(cache.validRecord(at: entry))
        #expect(found.record.checkedAt >= before.addingTimeInterval(-0.001))
        #expect(found.record.etag == record.etag && found.record.stamp == record.stamp)
    }

    @Test func aNewerRecordIsNotOverruledByAnOlderConfirmation() throws {
        let cache = try Self.cache(in: try BundleFixtures.temporaryDirectory("originals"))
        var (entry, record) = try Self.saved(in: cache)
        try cache.save(record, at: entry)
        try cache.confirm(entry)
        try cache.records.flush()
        // A download later replaces the record: its own check time counts, not the confirmation's.
        record.checkedAt = Date().addingTimeInterval(60)
        try cache.save(record, at: entry)
        // (Within a millisecond: a date read back from its text may differ in the last bit.)
        let found = try #require(cache.validRecord(at: entry))
        #expect(abs(found.record.checkedAt.timeIntervalSince(record.checkedAt)) < 0.001)
    }

    /// Records are parsed as bytes: every field, in any order, a field named twice (the last
    /// counts), one this version does not know (skipped), a stamp with times before 1970.
    @Test func aRecordsTextReadsBackWhateverItsFieldOrder() throws {
        let stamp = FileStamp(size: 48213, inode: 1834411, modifiedSeconds: -86400, modifiedNanoseconds: 5,
                              changedSeconds: 1795620258, changedNanoseconds: 369242887)
        #expect(FileStamp(text: stamp.text) == stamp)
        let record = OriginalRecord(identifier: "https://cdn.example.com/ä.jpg", sha256: "9f86d0", byteCount: 48213,
                                    etag: "W/\"5e8a\"", lastModified: "Tue, 03 Nov 2026 10:00:00 GMT",
                                    checkedAt: Date(timeIntervalSince1970: 1795620258.369), stamp: stamp)
        #expect(OriginalRecord(text: record.text) == record)
        let shuffled = "warm-cache original 1\nstamp\t\(stamp.text)\nchecked-at\t1795620258.369\nfuture\tfield\n"
            + "bytes\t1\nbytes\t48213\netag\tW/\"5e8a\"\nsha256\t9f86d0\nidentifier\thttps://cdn.example.com/ä.jpg\n"
            + "last-modified\tTue, 03 Nov 2026 10:00:00 GMT\n"
        #expect(OriginalRecord(text: Data(shuffled.utf8)) == record)
        for broken in ["1 2 3 4 5", "1 2 3 4 5 6 7", "1  2 3 4 5 6", "1 -2 3 4 5 6", "1 2 3 4 5 x", "1 2 3 4 5 6 ", "- 2 3 4 5 6"] {
            #expect(FileStamp(text: broken) == nil, "\(broken)")
        }
    }

    @Test(arguments: ["", "warm-cache original 1\nidentifier\tx", "warm-cache original 9\n", "{\"sha256\": 1}\n",
                      "warm-cache original 1\nidentifier x\nsha256\ta\nbytes\t1\nchecked-at\t1\n",
                      "warm-cache original 1\nidentifier\tx\nsha256\ta\nbytes\tmany\nchecked-at\t1\n",
                      "warm-cache original 1\nidentifier\tx\nsha256\ta\nbytes\t1\nchecked-at\t1\nstamp\t1 2\n"])
    func aTornOrForeignRecordIsNone(text: String) throws {
        let cache = try Self.cache(in: try BundleFixtures.temporaryDirectory("originals"))
        let (entry, _) = try Self.saved(in: cache)
        try cache.records.saveOriginal(Data(text.utf8), named: entry.name)
        #expect(cache.validRecord(at: entry) == nil)
    }

    @Test func aRecordWhoseOriginalChangedIsDiscarded() throws {
        let cache = try Self.cache(in: try BundleFixtures.temporaryDirectory("originals"))
        let (entry, record) = try Self.saved(in: cache)
        try cache.save(record, at: entry)
        try DurableFile.write(Data("other bytes, same.....".utf8), toPath: entry.dataPath)
        #expect(cache.validRecord(at: entry) == nil)
        #expect(cache.records.original(named: entry.name) == nil)
    }

    /// A cache directory in an earlier layout (a record file beside each original, a `renders/`
    /// folder, no records database) counts as empty: its originals are fetched again.
    @Test func aCacheDirectoryInAnEarlierLayoutCountsAsEmpty() throws {
        let directory = try BundleFixtures.temporaryDirectory("originals")
        // Paths in `directory`, records elsewhere: `directory` has none.
        let cache = OriginalsCache(cacheDirectory: directory,
                                   records: try CacheRecords(cacheDirectory: try BundleFixtures.temporaryDirectory("elsewhere")))
        let (entry, record) = try Self.saved(in: cache)
        try DurableFile.write(record.text, toPath: entry.folderPath + "/\(entry.name).record")
        let memoFolder = directory.appendingPathComponent("renders/ab")
        try FileManager.default.createDirectory(at: memoFolder, withIntermediateDirectories: true)
        try Data("warm-cache render memo 3\n".utf8).write(to: memoFolder.appendingPathComponent("ab01.memo"))

        let reopened = try Self.cache(in: directory)
        #expect(reopened.validRecord(at: entry) == nil)
        #expect(reopened.records.render(key: "ab01") == nil)
        try reopened.save(record, at: entry)
        #expect(reopened.validRecord(at: entry)?.record == record)
    }

    /// A records file that is not a database (a torn CI-cache restore) is replaced by an empty
    /// one: its originals are downloaded again, the run goes on.
    @Test func aDamagedRecordsFileIsReplaced() throws {
        let directory = try BundleFixtures.temporaryDirectory("originals")
        let path = directory.appendingPathComponent(CacheRecords.fileName)
        try Data(repeating: 0x5a, count: 8192).write(to: path)
        let cache = try Self.cache(in: directory)
        let (entry, record) = try Self.saved(in: cache)
        #expect(cache.validRecord(at: entry) == nil)
        try cache.save(record, at: entry)
        #expect(cache.validRecord(at: entry)?.record == record)
    }

    /// A records file whose first pages are intact but whose others are damaged (a torn copy)
    /// opens; SQLite finds the damage on the first look-up, and the records are replaced by empty
    /// ones then, so saving goes on working instead of failing every download.
    @Test func recordsFoundDamagedDuringARunAreReplaced() throws {
        let directory = try BundleFixtures.temporaryDirectory("originals")
        let path = directory.appendingPathComponent(CacheRecords.fileName).path
        do {
            _ = try CacheRecords(cacheDirectory: directory)  // creates the tables
            let filler = Data(repeating: 0x41, count: 300)
            try Self.saveOriginals((0..<3000).map { ("name-\($0)", filler) }, in: directory)
        }  // closed: the log is checkpointed into the file
        let handle = try #require(FileHandle(forUpdatingAtPath: path))
        let size = try handle.seekToEnd()
        #expect(size > 100_000)
        try handle.seek(toOffset: 8192)
        handle.write(Data(repeating: 0xff, count: Int(size) - 8192))
        try handle.close()

        let cache = try Self.cache(in: directory)
        #expect(cache.records.original(named: "name-2999") == nil)
        let (entry, record) = try Self.saved(in: cache)
        try cache.save(record, at: entry)
        #expect(cache.validRecord(at: entry)?.record == record)
        #expect(cache.records.original(named: "name-1") == nil, "the damaged records are gone, not half kept")
    }

    /// Each re-warm confirms every original; the log those confirmations go through is emptied at
    /// the end of each run, so it neither grows from run to run nor has to be replayed by the next.
    @Test func theRecordsLogIsEmptiedAtTheEndOfEachRun() throws {
        let directory = try BundleFixtures.temporaryDirectory("originals")
        let log = directory.appendingPathComponent(CacheRecords.fileName + "-wal").path
        let cache = try Self.cache(in: directory)
        let entries = (0..<2000).map { cache.entry(for: SourceIdentifier(verbatim: "https://img.example.com/\($0).jpg")) }
        try Self.saveOriginals(entries.map { ($0.name, Data("record".utf8)) }, in: directory)
        for _ in 0..<5 {
            let records = try CacheRecords(cacheDirectory: directory)
            let run = OriginalsCache(cacheDirectory: directory, records: records)
            for entry in entries { try run.confirm(entry) }
            try records.flush()
            records.checkpointLog()
            let size = (try? FileManager.default.attributesOfItem(atPath: log)[.size] as? Int) ?? 0
            #expect(size == 0, "the log holds \(size) bytes at the end of a run")
        }
    }
}
