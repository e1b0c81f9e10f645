import Foundation
import Testing
import WarmCache
@testable import WarmCacheBuilder

@Suite("Bundle writer and reader round trip")
struct BundleRoundTripTests {
    let sources = ["https://cdn.example.com/a.jpg", "https://cdn.example.com/b.jpg", "Examples/Images/coffee.png"]

    @Test("every written variant is found by exact key with its bytes")
    func exactLookup() throws {
        let url = try BundleFixtures.temporaryDirectory().appendingPathComponent("Images.warmcache")
        let written = try BundleFixtures.write(to: url, sources: sources)
        let bundle = try CacheBundle(contentsOf: url)
        #expect(bundle.info.formatMajor == BundleFormat.majorVersion)
        #expect(bundle.info.generator == "warm-cache tests")
        #expect(bundle.info.variantCount == written.contents.variants.count)
        for variant in written.contents.variants {
            let hit = try #require(try bundle.image(for: variant.key))
            #expect(hit.cacheKey == variant.key.rawValue)
            #expect(hit.pixelSize == variant.pixelSize)
            #expect(hit.format == variant.key.spec.format)
            #expect(hit.byteCount == variant.byteCount)
            #expect(try hit.data() == written.bytes[variant.key.rawValue])
            #expect(hit.fileURL.lastPathComponent == "\(hit.sha256).\(hit.format.fileExtension)")
            #expect(hit.fileURL.deletingLastPathComponent().lastPathComponent == String(hit.sha256.prefix(2)))
            #expect(hit.key?.spec == variant.key.spec)
        }
        #expect(try bundle.image(forCacheKey: "https://cdn.example.com/zzz.jpg|1x1|@1x|inside|png|-") == nil)
    }

    @Test("best-fit lookups by URL, scale and accepted formats")
    func bestFit() throws {
        let url = try BundleFixtures.temporaryDirectory().appendingPathComponent("Images.warmcache")
        try BundleFixtures.write(to: url, sources: sources)
        let bundle = try CacheBundle(contentsOf: url)
        let a = URL(string: "HTTPS://cdn.example.com:443/a.jpg#x")!  // normalised like the writer's
        let hit = try #require(try bundle.bestImage(for: a, size: PointSize(width: 100, height: 75), scale: 2,
                                                    accepting: [.avif, .webp, .jpeg]))
        #expect(hit.format == .webp)
        #expect(hit.pixelSize == PixelSize(width: 200, height: 150))
        let jpeg = try bundle.bestImage(for: a, size: PointSize(width: 100, height: 75), scale: 3, accepting: [.jpeg])
        #expect(jpeg?.pixelSize == PixelSize(width: 300, height: 225))
        let huge = try bundle.bestImage(for: a, size: PointSize(width: 2000, height: 2000), scale: 3,
                                        accepting: [.jpeg])
        #expect(huge?.pixelSize == PixelSize(width: 300, height: 225))
        #expect(try bundle.bestImage(for: a, size: PointSize(width: 10, height: 10), scale: 1, accepting: [.avif]) == nil)
        #expect(try bundle.bestImage(for: URL(string: "https://other.test/a.jpg")!,
                                     size: PointSize(width: 10, height: 10), scale: 1, accepting: [.jpeg]) == nil)
        let local = try bundle.bestImage(for: "Examples/Images/coffee.png", size: PointSize(width: 50, height: 50),
                                         scale: 1, accepting: [.jpeg], preset: "card")
        #expect(local?.pixelSize == PixelSize(width: 100, height: 75))
        #expect(try bundle.bestImage(for: a, size: PointSize(width: 50, height: 50), scale: 1, accepting: [.jpeg],
                                     preset: "hero") == nil)
    }

    @Test("placeholders come back as written")
    func placeholders() throws {
        let url = try BundleFixtures.temporaryDirectory().appendingPathComponent("Images.warmcache")
        try BundleFixtures.write(to: url, sources: sources)
        let bundle = try CacheBundle(contentsOf: url)
        let placeholder = try #require(try bundle.placeholder(for: URL(string: sources[0])!))
        #expect(placeholder.thumbHash == Data([1, 2, 3]))
        #expect(placeholder.blurHash == "LEHV6nWB2yk8")
        #expect(placeholder.averageColor == RGBAColor(red: 10, green: 20, blue: 30))
        #expect(try bundle.placeholder(for: URL(string: "https://cdn.example.com/none.jpg")!) == nil)
    }

    @Test("identical outputs are stored once")
    func deduplication() throws {
        let url = try BundleFixtures.temporaryDirectory().appendingPathComponent("Images.warmcache")
        let writer = BundleWriter(bundleURL: url)
        try writer.prepare()
        let first = try writer.storeBlob(Data("same".utf8), format: .png)
        let second = try writer.storeBlob(Data("same".utf8), format: .png)
        #expect(first.written && !second.written)
        #expect(first.sha256 == second.sha256)
        let files = try BundleFixtures.snapshot(url.appendingPathComponent("objects"))
        #expect(files.count == 1)
    }

    @Test("the same contents give a byte-identical index, whatever the insertion order")
    func deterministicIndex() throws {
        let first = try BundleFixtures.temporaryDirectory().appendingPathComponent("A.warmcache")
        let second = try BundleFixtures.temporaryDirectory().appendingPathComponent("A.warmcache")
        try BundleFixtures.write(to: first, sources: sources)
        try BundleFixtures.write(to: second, sources: sources.reversed())
        let a = try Data(contentsOf: first.appendingPathComponent("index.sqlite"))
        let b = try Data(contentsOf: second.appendingPathComponent("index.sqlite"))
        #expect(a == b)
        #expect(try BundleFixtures.snapshot(first) == BundleFixtures.snapshot(second))
        // Asking for a timestamp does change it.
        let third = try BundleFixtures.temporaryDirectory().appendingPathComponent("A.warmcache")
        try BundleFixtures.write(to: third, sources: sources, createdAt: Date(timeIntervalSince1970: 1_000_000))
        #expect(try Data(contentsOf: third.appendingPathComponent("index.sqlite")) != a)
    }

    @Test("a re-commit deletes blobs nothing references any more")
    func garbageCollection() throws {
        let url = try BundleFixtures.temporaryDirectory().appendingPathComponent("Images.warmcache")
        try BundleFixtures.write(to: url, sources: sources)
        let written = try BundleFixtures.write(to: url, sources: [sources[0]], salt: "v2")
        let files = try BundleFixtures.snapshot(url.appendingPathComponent("objects"))
        #expect(files.count == written.contents.variants.count)
        #expect(Set(files.values) == Set(written.bytes.values))
        #expect(!FileManager.default.fileExists(atPath: url.appendingPathComponent(".tmp").path))
    }

    @Test("a blob deleted behind the reader's back is a clear error")
    func missingBlob() throws {
        let url = try BundleFixtures.temporaryDirectory().appendingPathComponent("Images.warmcache")
        try BundleFixtures.write(to: url, sources: sources)
        let bundle = try CacheBundle(contentsOf: url, configuration: .init(memoryCacheCountLimit: 0))
        let hit = try #require(try bundle.bestImage(for: sources[0], size: PointSize(width: 100, height: 75),
                                                    scale: 1, accepting: [.jpeg]))
        try FileManager.default.removeItem(at: hit.fileURL)
        #expect {
            try hit.data()
        } throws: { error in
            guard let error = error as? CacheBundleError, case .blobMissing(let path) = error.kind else { return false }
            return path.hasPrefix("objects/") && error.description.contains("missing")
        }
    }

    @Test("many concurrent readers get the same answers as one")
    func concurrentReaders() async throws {
        let url = try BundleFixtures.temporaryDirectory().appendingPathComponent("Images.warmcache")
        let written = try BundleFixtures.write(to: url, sources: sources)
        let bundle = try CacheBundle(contentsOf: url, configuration: .init(memoryCacheCountLimit: 4,
                                                                           maximumConnections: 3))
        let keys = written.contents.variants.map(\.key)
        let failures = await withTaskGroup(of: Int.self) { group in
            for task in 0..<16 {
                group.addTask {
                    var failures = 0
                    for index in 0..<300 {
                        let key = keys[(index + task) % keys.count]
                        let hit = try? bundle.image(for: key)
                        if (try? hit?.data()) != written.bytes[key.rawValue] { failures += 1 }
                        let best = try? bundle.bestImage(for: key.source, size: PointSize(width: 100, height: 75),
                                                         scale: Double(key.spec.scale), accepting: [.jpeg])
                        if best?.pixelSize.width != 100 * key.spec.scale { failures += 1 }
                    }
                    return failures
                }
            }
            return await group.reduce(0, +)
        }
        #expect(failures == 0)
        #expect(bundle.memoryCache.count <= 4)
    }
}
