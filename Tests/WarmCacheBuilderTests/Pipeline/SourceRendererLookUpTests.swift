import Foundation
import Testing
import WarmCache
import WarmCacheImaging
@testable import WarmCacheBuilder

/// What the look-up hands to rendering: the original's size, which orders the imaging slots
/// (larger first), whether the original was downloaded, found in the cache or read from disk.
@Suite struct SourceRendererLookUpTests {
    @Test func aPendingRenderKnowsItsOriginalsSizeWithOrWithoutItsBytes() throws {
        let directory = try BundleFixtures.temporaryDirectory("lookup")
        let engine = try ImagingEngine()
        let renderer = SourceRenderer(engine: engine, processes: nil,
                                      writer: BundleWriter(bundleURL: directory.appendingPathComponent("B.warmcache")),
                                      memo: RenderMemo(records: try CacheRecords(cacheDirectory: directory),
                                                       configuration: engine.configuration, vectorPaths: false))
        let original = directory.appendingPathComponent("original.jpg")
        try Data(repeating: 7, count: 12_345).write(to: original)
        let source = PlannedSource(identifier: SourceIdentifier(verbatim: "https://img.example.com/a.jpg"),
                                   location: .remote(URL(string: "https://img.example.com/a.jpg")!), variants: [],
                                   placeholders: .averageColor,
                                   manifestLocation: ManifestLocation(file: "m.yml", line: 1, column: 1))
        // A cached original comes with its hash: not read, its size from the file.
        guard case .needsRender(let cached) = try renderer.lookUp(source, original: original,
                                                                 knownSHA256: String(repeating: "a", count: 64)) else {
            Issue.record("expected a render")
            return
        }
        #expect(cached.bytes == nil && cached.byteCount == 12_345)
        // A local file is read to be hashed: its size is its bytes'.
        guard case .needsRender(let read) = try renderer.lookUp(source, original: original, knownSHA256: nil) else {
            Issue.record("expected a render")
            return
        }
        #expect(read.bytes?.count == 12_345 && read.byteCount == 12_345)
    }
}
