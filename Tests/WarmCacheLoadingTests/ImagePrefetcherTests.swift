import Foundation
import Testing
import WarmCache
@testable import WarmCacheLoading
import WarmCacheTestSupport

@Suite(.timeLimit(.minutes(1))) struct ImagePrefetcherTests {
    @Test func prefetchingFillsTheDecodedCache() async throws {
        let decoder = StandInDecoder()
        let loader = LoaderFixtures.loader(bundle: try LoaderFixtures.bundle(photos: 4), decoder: decoder)
        let prefetcher = ImagePrefetcher(loader: loader, size: PointSize(width: 100, height: 100), scale: 2)
        let urls = (1...4).map(LoaderFixtures.photo)
        prefetcher.startPrefetching(with: urls + urls)
        try await waitUntil { prefetcher.loadingCount == 0 && loader.decodedCache.count == 4 }
        for url in urls {
            #expect(loader.cachedImage(for: LoaderFixtures.request(url)) != nil)
        }
        #expect(decoder.callCount == 4)
        prefetcher.startPrefetching(with: urls)  // all in memory: nothing starts
        #expect(prefetcher.loadingCount == 0)
    }

    @Test func stoppingCancelsTheLoad() async throws {
        let held = FixtureGate()
        let server = try await FixtureServer.start(routes: ["/a.png": .held(held, LoaderFixtures.served(width: 64, height: 64))])
        let decoder = StandInDecoder()
        let loader = LoaderFixtures.loader(bundle: nil, decoder: decoder)
        let prefetcher = ImagePrefetcher(loader: loader, size: PointSize(width: 100, height: 100), scale: 2)
        let url = server.url("/a.png")
        prefetcher.startPrefetching(with: [url])
        try await waitUntil { server.requestCount(for: "/a.png") == 1 && loader.downloads.task(for: url) != nil }
        let download = try #require(loader.downloads.task(for: url))

        prefetcher.stopPrefetching(with: [url])
        #expect(prefetcher.loadingCount == 0)
        await download.value  // ends while the server still holds its answer: cancelled
        #expect(loader.downloads.task(for: url) == nil)
        #expect(decoder.callCount == 0 && loader.decodedCache.count == 0)
        held.open()
        try await server.shutdown()
    }

    @Test func stoppingEverythingCancelsEveryLoad() async throws {
        let held = FixtureGate()
        let server = try await FixtureServer.start(routes: [
            "/a.png": .held(held, LoaderFixtures.served(width: 64, height: 64)),
            "/b.png": .held(held, LoaderFixtures.served(width: 64, height: 64)),
        ])
        let loader = LoaderFixtures.loader(bundle: nil)
        let prefetcher = ImagePrefetcher(loader: loader, size: PointSize(width: 10, height: 10), scale: 1)
        prefetcher.startPrefetching(with: [server.url("/a.png"), server.url("/b.png")])
        try await waitUntil { server.totalRequestCount == 2 }
        prefetcher.stopPrefetching()
        #expect(prefetcher.loadingCount == 0)
        try await waitUntil { loader.downloads.task(for: server.url("/a.png")) == nil
            && loader.downloads.task(for: server.url("/b.png")) == nil }
        held.open()
        try await server.shutdown()
    }
}
