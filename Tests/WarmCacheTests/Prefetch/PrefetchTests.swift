import Foundation
import Testing
import WarmCache

@Suite("Prefetch into the memory tier")
struct PrefetchTests {
    static let size = PointSize(width: 100, height: 100)

    func makeBundle(sources: Int) throws -> CacheBundle {
        var bundle = try HandMadeBundle()
        for index in 0..<sources {
            bundle.add("https://img.test/\(index).jpg", width: 100, payload: "blob \(index)")
        }
        return try CacheBundle(contentsOf: bundle.write(),
                               configuration: .init(memoryCacheCountLimit: 1_000))
    }

    @Test("loads the images bestImage would return, then finds them in memory")
    func loadsThenHits() async throws {
        let bundle = try makeBundle(sources: 20)
        let urls = (0..<20).map { URL(string: "https://img.test/\($0).jpg")! }
            + [URL(string: "https://img.test/absent.jpg")!]
        let first = await bundle.prefetch(urls, size: Self.size, scale: 1).value
        #expect(first.loaded == 20 && first.notFound == 1 && first.failed == 0)
        #expect(bundle.memoryCache.count == 20)
        let again = await bundle.prefetch(urls, size: Self.size, scale: 1).value
        #expect(again.loaded == 0 && again.alreadyInMemory == 20)
    }

    @Test("duplicate requests, within one call and across concurrent calls, read each blob once")
    func coalesces() async throws {
        let bundle = try makeBundle(sources: 200)
        let urls = (0..<200).map { URL(string: "https://img.test/\($0).jpg")! }
        async let a = bundle.prefetch(urls + urls, size: Self.size, scale: 1).value
        async let b = bundle.prefetch(urls.reversed(), size: Self.size, scale: 1).value
        async let c = bundle.prefetch(urls, size: Self.size, scale: 1).value
        let summaries = await [a, b, c]
        // Whatever the interleaving, every blob is read exactly once in total.
        #expect(summaries.map(\.loaded).reduce(0, +) == 200)
        #expect(summaries.map { $0.loaded + $0.alreadyInMemory + $0.coalesced }.reduce(0, +) == 800)
    }

    @Test("a cancelled prefetch stops and says so")
    func cancellation() async throws {
        let bundle = try makeBundle(sources: 5)
        let urls = (0..<5).map { URL(string: "https://img.test/\($0).jpg")! }
        let task = bundle.prefetch(urls, size: Self.size, scale: 1, priority: .background)
        task.cancel()
        let summary = await task.value
        #expect(summary.cancelled || summary.loaded == 5)
        #expect(summary.loaded == bundle.memoryCache.count)
    }
}
