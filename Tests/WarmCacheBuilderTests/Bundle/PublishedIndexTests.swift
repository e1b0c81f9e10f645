import Foundation
import Testing
import WarmCache
@testable import WarmCacheBuilder

/// What a warm remembers of the index it left (``PublishedIndex``): the digest of the staged rows
/// and the file's stamp, which let a no-op re-warm skip comparing rows while the file is untouched.
@Suite("Published index records")
struct PublishedIndexTests {
    /// Stages `contents` one source at a time, in the given order, and returns its contents digest.
    private func digest(of contents: BundleContents, order: [Int]) throws -> String? {
        let directory = try BundleFixtures.temporaryDirectory("digest")
        defer { try? FileManager.default.removeItem(at: directory) }
        let builder = try IndexBuilder(generator: "warm-cache tests",
                                       stagingPath: directory.appendingPathComponent("staging.sqlite").path)
        defer { builder.discard() }
        for index in order {
            let source = contents.sources[index]
            let variants = contents.variants.filter { $0.key.source == source.identifier }
            try builder.add(source, variants: variants.reversed())
        }
        return try builder.contentsDigest(createdAt: nil, manifestFingerprint: "f", shard: nil)
    }

    @Test("the digest does not depend on the order rows are staged in, and any value changes it")
    func digestOfRows() throws {
        let bundle = try BundleFixtures.temporaryDirectory().appendingPathComponent("A.warmcache")
        let contents = try BundleFixtures.write(to: bundle, sources: (0..<20).map { "https://cdn.example.com/\($0).jpg" })
            .contents
        let forward = try #require(try digest(of: contents, order: Array(0..<20)))
        #expect(try digest(of: contents, order: Array((0..<20).reversed())) == forward)

        var changed = contents
        changed.variants[7].byteCount += 1
        #expect(try digest(of: changed, order: Array(0..<20)) != forward)
        changed = contents
        changed.variants[3].presets.append("hero")
        #expect(try digest(of: changed, order: Array(0..<20)) != forward)
        changed = contents
        changed.sources[5].placeholder = nil
        #expect(try digest(of: changed, order: Array(0..<20)) != forward)
        // One source fewer: the meta rows count them too, and the rows' sum has a term less.
        #expect(try digest(of: contents, order: Array(0..<19)) != forward)
    }

    @Test("a commit told what the last one left skips the comparison only while the file is untouched",
          arguments: [false, true])
    func commitTrustsAnUntouchedIndex(deferringRows: Bool) throws {
        let bundle = try BundleFixtures.temporaryDirectory().appendingPathComponent("B.warmcache")
        let written = try BundleFixtures.write(to: bundle, sources: (0..<5).map { "https://cdn.example.com/\($0).jpg" },
                                               fingerprint: "f")
        func restage() throws -> BundleWriter {
            let writer = BundleWriter(bundleURL: bundle, generator: "warm-cache tests")
            try writer.prepare()
            if deferringRows { try writer.deferRows() }
            for source in written.contents.sources {
                try writer.add(source, variants: written.contents.variants.filter { $0.key.source == source.identifier })
            }
            return writer
        }
        // No record yet: compared row by row, found unchanged, and recorded.
        let first = try restage().commit(manifestFingerprint: "f", lastPublished: nil)
        let record = try #require(first.published)
        #expect(first.summary.sourceCount == 5 && first.summary.blobCount == 30)

        // With the record: the same summary, and the record stands.
        let second = try restage().commit(manifestFingerprint: "f", lastPublished: record)
        #expect(second.summary == first.summary)
        #expect(second.published == record)

        // A record that does not describe the file (another stamp) is not trusted: the rows are
        // compared, and the record describes the file again.
        var stale = record
        stale.stamp.changedNanoseconds += 1
        let third = try restage().commit(manifestFingerprint: "f", lastPublished: stale)
        #expect(third.summary == first.summary)
        #expect(third.published == record)

        // Different rows publish a new index, whatever the record says.
        let writer = BundleWriter(bundleURL: bundle, generator: "warm-cache tests")
        try writer.prepare()
        if deferringRows { try writer.deferRows() }
        let kept = written.contents.sources.dropLast()
        for source in kept {
            try writer.add(source, variants: written.contents.variants.filter { $0.key.source == source.identifier })
        }
        let fourth = try writer.commit(manifestFingerprint: "f", lastPublished: record)
        #expect(fourth.summary.sourceCount == 4)
        #expect(fourth.published != nil && fourth.published != record)
    }

    @Test("the record reads back from its text, and nothing else reads as one")
    func text() throws {
        let record = PublishedIndex(
            stamp: FileStamp(size: 8_024_064, inode: 42, modifiedSeconds: 1_795_647_097, modifiedNanoseconds: 184_080_284,
                             changedSeconds: 1_795_647_097, changedNanoseconds: 344_080_277),
            contentsDigest: String(repeating: "ab", count: 32), sourceCount: 8000, variantCount: 16000,
            blobCount: 16000, blobBytes: 38_332_598,
            payload: BundlePayload(files: 16000, bytes: 38_332_598,
                                   byFormat: [.init(name: "jpeg", variants: 16000, files: 16000, bytes: 38_332_598)],
                                   byPreset: [.init(name: "thumb", variants: 16000, files: 16000, bytes: 38_332_598)],
                                   largestSources: []))
        #expect(PublishedIndex(text: record.text) == record)
        var withoutPayload = record
        withoutPayload.payload = nil
        #expect(PublishedIndex(text: withoutPayload.text) == withoutPayload)
        #expect(PublishedIndex(text: "") == nil)
        #expect(PublishedIndex(text: record.text.replacingOccurrences(of: "index 2", with: "index 3")) == nil)
        #expect(PublishedIndex(text: record.text.replacingOccurrences(of: "ab", with: "zz")) == nil)
        #expect(PublishedIndex(text: String(record.text.dropLast(3))) != record)
    }
}
