import Foundation
import Testing
import WarmCache
@testable import WarmCacheBuilder

/// Rows that wait unstaged (``IndexBuilder/deferRows()``), as a re-warm's do until it adds a blob:
/// whatever the moment they are staged, the index is the one rows staged at once make.
@Suite("Deferred index rows")
struct DeferredRowsTests {
    private func contents(_ count: Int, placeholder: Bool = true) throws -> BundleContents {
        let bundle = try BundleFixtures.temporaryDirectory("deferred").appendingPathComponent("A.warmcache")
        return try BundleFixtures.write(to: bundle, sources: (0..<count).map { "https://cdn.example.com/\($0).jpg" },
                                        placeholder: placeholder).contents
    }

    private func variants(of source: BundleContents.Source, in contents: BundleContents) -> [BundleContents.Variant] {
        contents.variants.filter { $0.key.source == source.identifier }
    }

    /// Stages `contents` (rows deferred when `deferring`, and a blob recorded after `blobAfter`
    /// sources) and publishes them; returns the index file's bytes.
    private func published(_ contents: BundleContents, deferring: Bool, blobAfter: Int? = nil) throws -> Data {
        let directory = try BundleFixtures.temporaryDirectory("deferred")
        defer { try? FileManager.default.removeItem(at: directory) }
        let builder = try IndexBuilder(generator: "warm-cache tests",
                                       stagingPath: directory.appendingPathComponent("staging.sqlite").path)
        defer { builder.discard() }
        if deferring { try builder.deferRows() }
        for (offset, source) in contents.sources.enumerated() {
            if offset == blobAfter { try builder.recordAdded(directory.appendingPathComponent("blob").path) }
            try builder.add(source, variants: variants(of: source, in: contents))
        }
        let index = directory.appendingPathComponent("index.sqlite")
        try builder.publish(to: index.path, createdAt: nil, manifestFingerprint: "f")
        return try Data(contentsOf: index)
    }

    @Test("deferred rows publish the index rows staged at once publish, byte for byte")
    func sameIndex() throws {
        let contents = try contents(40)
        let direct = try published(contents, deferring: false)
        #expect(try published(contents, deferring: true) == direct)
        // A blob added half-way stages what waited, and the rest is staged as it comes.
        #expect(try published(contents, deferring: true, blobAfter: 20) == direct)
        let plain = try self.contents(10, placeholder: false)
        #expect(try published(plain, deferring: true) == published(plain, deferring: false))
    }

    @Test("deferred rows have the digest and counts of staged rows, and stay unstaged for them")
    func digestWithoutStaging() throws {
        let contents = try contents(12)
        func digest(deferring: Bool) throws -> (String?, staged: Int) {
            let directory = try BundleFixtures.temporaryDirectory("deferred")
            defer { try? FileManager.default.removeItem(at: directory) }
            let staging = directory.appendingPathComponent("staging.sqlite").path
            let builder = try IndexBuilder(generator: "warm-cache tests", stagingPath: staging)
            defer { builder.discard() }
            if deferring { try builder.deferRows() }
            for source in contents.sources {
                try builder.add(source, variants: variants(of: source, in: contents))
            }
            let digest = try builder.contentsDigest(createdAt: nil, manifestFingerprint: "f", shard: nil)
            // The rows waiting are still in their file, not in the staging tables.
            let waiting = FileManager.default.fileExists(atPath: staging + "-deferred")
            #expect(waiting == deferring)
            return (digest, try builder.count("sources"))
        }
        let direct = try digest(deferring: false)
        let deferred = try digest(deferring: true)
        #expect(deferred.0 != nil && deferred.0 == direct.0)
        #expect(direct.staged == 12 && deferred.staged == 12)
    }

    @Test("a source added twice while rows wait is refused by the commit, and nothing is published")
    func duplicateFoundAtCommit() throws {
        let contents = try contents(3)
        let url = try BundleFixtures.temporaryDirectory().appendingPathComponent("Twice.warmcache")
        let writer = BundleWriter(bundleURL: url)
        try writer.prepare()
        try writer.deferRows()
        let source = contents.sources[1]
        try writer.add(source, variants: variants(of: source, in: contents))
        try writer.add(source, variants: variants(of: source, in: contents))
        #expect {
            try writer.commit()
        } throws: { error in
            let error = error as? BundleWriterError
            return error?.kind == .inconsistentContents && error?.detail.contains("1.jpg") == true
        }
        writer.abandon()
        #expect(!FileManager.default.fileExists(atPath: url.appendingPathComponent(BundleFormat.indexFileName).path))
    }

    @Test("rows read back from their bytes, and other bytes do not read as rows")
    func bytes() throws {
        let contents = try contents(2)
        let source = contents.sources[0]
        let rows = SourceRows(source, variants: variants(of: source, in: contents))
        let read = SourceRows(bytes: rows.bytes)
        // A row holds its table's columns but the source id (which staging assigns), in the table's
        // order: the order the staging database's inserts list them in.
        let valueCounts: [SourceRows.Table: Int] = [
            .sources: IndexSchema.Sources.table.columns.count - 1,
            .placeholders: IndexSchema.Placeholders.table.columns.count - 1,
            .variants: IndexSchema.Variants.table.columns.count - 1,
        ]
        var tables: [SourceRows.Table] = []
        try read.forEachRow { table, values in
            tables.append(table)
            if table == .sources, case .text(let identifier)? = values.first {
                #expect(identifier == source.identifier.rawValue)
            }
            if let count = valueCounts[table] {
                #expect(values.count == count, "\(table)")
            }
        }
        let variantCount = variants(of: source, in: contents).count
        #expect(tables == [.sources, .placeholders] + Array(repeating: [.variants, .variantPresets], count: variantCount)
            .flatMap { $0 })
        for bytes in [Array(rows.bytes.dropLast()), Array("nothing".utf8)] {
            #expect(throws: SourceRows.Malformed.self) { try SourceRows(bytes: bytes).forEachRow { _, _ in } }
        }
    }

    @Test("a scratch file that does not read back as the rows appended is refused, naming it")
    func damagedScratchFile() throws {
        let contents = try contents(4)
        let directory = try BundleFixtures.temporaryDirectory("deferred")
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("rows").path
        let deferred = try DeferredRows(path: path)
        for source in contents.sources {
            try deferred.append(SourceRows(source, variants: variants(of: source, in: contents)), variantCount: 0)
        }
        var read = 0
        try deferred.forEach { _ in read += 1 }
        #expect(read == 4)
        // Damage the first row's table name in place (the file stays open for reading back).
        let handle = try #require(FileHandle(forUpdatingAtPath: path))
        try handle.seek(toOffset: 4)
        handle.write(Data("xxxx".utf8))
        try handle.close()
        #expect {
            try deferred.forEach { rows in try rows.forEachRow { _, _ in } }
        } throws: { error in
            (error as? DeferredRows.Damaged)?.description.contains(path) == true
        }
    }
}
