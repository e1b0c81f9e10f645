import Foundation
import Testing
import WarmCache

@Suite("Layered reads over several bundles")
struct LayeredCacheBundleTests {
    static let size = PointSize(width: 50, height: 50)

    /// Newer: `a` re-baked at width 80 only. Older (shipped): `a` at 40 and 200, and `b` at 100.
    func makeLayers() throws -> (newer: URL, older: URL) {
        var newer = try HandMadeBundle(name: "Downloaded")
        newer.add("https://img.test/a.jpg", width: 80, payload: "new a 80")
        var older = try HandMadeBundle(name: "Shipped")
        older.add("https://img.test/a.jpg", width: 40, payload: "old a 40")
        older.add("https://img.test/a.jpg", width: 200, payload: "old a 200")
        older.add("https://img.test/b.jpg", width: 100, payload: "old b 100")
        return (try newer.write(), try older.write())
    }

    @Test("a source in the newer layer hides all of the older layer's variants")
    func newerLayerHides() throws {
        let (newer, older) = try makeLayers()
        let layered = try LayeredCacheBundle(contentsOf: [newer, older])
        let a = try #require(try layered.bestImage(for: "https://img.test/a.jpg", size: Self.size, scale: 2))
        // The older layer's 200 px variant would cover 100 px better, but the newer layer owns `a`.
        #expect(a.pixelSize.width == 80)
        #expect(try String(decoding: a.data(), as: UTF8.self) == "new a 80")
        #expect(try layered.images(for: SourceIdentifier("https://img.test/a.jpg")).count == 1)
        #expect(try layered.layer(for: SourceIdentifier("https://img.test/a.jpg"))?.url == newer)
    }

    @Test("sources only the older layer lists fall through to it")
    func fallsThrough() throws {
        let (newer, older) = try makeLayers()
        let layered = try LayeredCacheBundle(contentsOf: [newer, older])
        let b = try #require(try layered.bestImage(for: URL(string: "https://IMG.test/b.jpg")!, size: Self.size,
                                                    scale: 1))
        #expect(b.fileURL.path.hasPrefix(older.path))
        #expect(try layered.image(forCacheKey: b.cacheKey) == b)
        #expect(try layered.contains(SourceIdentifier("https://img.test/b.jpg")))
        #expect(try layered.bestImage(for: "https://img.test/c.jpg", size: Self.size, scale: 1) == nil)
    }

    @Test("a layer that does not exist yet is skipped; none at all is an error")
    func missingLayers() throws {
        let (_, older) = try makeLayers()
        let notYet = older.deletingLastPathComponent().appendingPathComponent("NotDownloadedYet.warmcache")
        let layered = try LayeredCacheBundle(contentsOf: [notYet, older])
        #expect(layered.layers.count == 1)
        #expect(throws: CacheBundleError.self) { try LayeredCacheBundle(contentsOf: [notYet]) }
    }

    @Test("prefetch loads each image from the layer that answers for it")
    func prefetch() async throws {
        let (newer, older) = try makeLayers()
        let layered = try LayeredCacheBundle(contentsOf: [newer, older])
        let summary = await layered.prefetch([URL(string: "https://img.test/a.jpg")!,
                                              URL(string: "https://img.test/b.jpg")!],
                                             size: Self.size, scale: 1).value
        #expect(summary.loaded == 2)
        #expect(layered.layers[0].memoryCache.count == 1 && layered.layers[1].memoryCache.count == 1)
    }
}
