import Foundation
import Testing
import WarmCache
@testable import WarmCacheLoading
import WarmCacheTestSupport

/// Which source answers: memory, the bundle (at the view's size), the network.
@Suite(.timeLimit(.minutes(1))) struct ImageLoaderSourceTests {
    @Test func theBundleAnswersFirstThenMemory() async throws {
        let decoder = StandInDecoder()
        let loader = LoaderFixtures.loader(bundle: try LoaderFixtures.bundle(), decoder: decoder)
        let request = LoaderFixtures.request(LoaderFixtures.photo(1))
        #expect(loader.cachedImage(for: request) == nil)

        let first = try await loader.image(for: request)
        #expect(first.origin == .bundle)
        #expect(first.image.pixelSize == PixelSize(width: 200, height: 150))
        #expect(decoder.calls.map(\.fromFile) == [true])

        let second = try await loader.image(for: request)
        #expect(second.origin == .memory)
        #expect(loader.cachedImage(for: request)?.pixelSize == PixelSize(width: 200, height: 150))
        #expect(decoder.callCount == 1)
    }

    @Test func decodesAtTheViewsSizeNotTheBlobs() async throws {
        let decoder = StandInDecoder()
        let loader = LoaderFixtures.loader(bundle: try LoaderFixtures.bundle(), decoder: decoder)
        // 250 × 250 pt at 2x: the 800 × 600 variant, decoded to cover 500 × 500 px: 667 × 500.
        let response = try await loader.image(for: LoaderFixtures.request(LoaderFixtures.photo(2), side: 250))
        #expect(response.image.pixelSize == PixelSize(width: 667, height: 500))
        #expect(decoder.calls.map(\.maxPixelSize) == [667])
        // A smaller view of the same variant is served by that decode, without another.
        let smaller = ImageRequest(url: LoaderFixtures.photo(2), size: PointSize(width: 220, height: 220), scale: 2)
        #expect(loader.cachedImage(for: smaller)?.pixelSize.width == 667)
    }

    @Test func theNetworkAnswersWhatTheBundleLacks() async throws {
        let server = try await FixtureServer.start(routes: ["/a.png": LoaderFixtures.served(width: 300, height: 200)])
        let decoder = StandInDecoder()
        let loader = LoaderFixtures.loader(bundle: try LoaderFixtures.bundle(), decoder: decoder)
        let request = ImageRequest(url: server.url("/a.png"), size: PointSize(width: 50, height: 50), scale: 2)

        let response = try await loader.image(for: request)
        #expect(response.origin == .network)
        // Its header says 300 × 200: decoded to cover the 100 × 100 px view, as a bundle blob is.
        #expect(response.image.pixelSize == PixelSize(width: 150, height: 100))
        #expect(decoder.calls.map(\.fromFile) == [false])
        #expect(try await loader.image(for: request).origin == .memory)
        #expect(loader.cachedImage(for: request) != nil)
        #expect(server.requestCount(for: "/a.png") == 1)
        try await server.shutdown()
    }

    @Test func withoutABundleEveryURLGoesToTheNetworkThroughTheLoadersOwnSession() async throws {
        let server = try await FixtureServer.start(routes: ["/b.png": LoaderFixtures.served(width: 40, height: 40)])
        let loader = ImageLoader(bundle: nil, decoder: StandInDecoder(), configuration: .init(accepting: [.png]))
        let response = try await loader.image(for: LoaderFixtures.request(server.url("/b.png")))
        #expect(response.origin == .network)
        #expect(response.image.pixelSize == PixelSize(width: 40, height: 40))
        try await server.shutdown()
    }

    @Test func aLayeredBundleAnswersFromTheNewestLayerThatListsTheSource() async throws {
        let url = LoaderFixtures.photo(1), onlyOld = LoaderFixtures.photo(2)
        var newer = try FixtureBundle(name: "Update")
        newer.add(url.absoluteString, width: 100, scale: 2, pixelSize: PixelSize(width: 200, height: 100))
        var older = try FixtureBundle(name: "Shipped")
        older.add(url.absoluteString, width: 100, scale: 2, pixelSize: PixelSize(width: 200, height: 150))
        older.add(onlyOld.absoluteString, width: 100, scale: 2, pixelSize: PixelSize(width: 120, height: 90))
        older.setPlaceholder(onlyOld.absoluteString, LoaderFixtures.placeholder)
        let layered = try LayeredCacheBundle(contentsOf: [newer.write(), older.write()])
        let loader = LoaderFixtures.loader(bundle: layered, usesNetwork: false)

        let fromNewer = try await loader.image(for: LoaderFixtures.request(url))
        #expect(fromNewer.origin == .bundle)
        #expect(fromNewer.image.pixelSize == PixelSize(width: 200, height: 100))
        let fromOlder = try await loader.image(for: LoaderFixtures.request(onlyOld))
        #expect(fromOlder.image.pixelSize == PixelSize(width: 120, height: 90))
        #expect(loader.placeholder(for: LoaderFixtures.request(onlyOld)) == LoaderFixtures.placeholder)
        #expect(loader.cachedImage(for: LoaderFixtures.request(url))?.pixelSize.height == 100)
    }

    @Test func aBlobTheBundleHoldsInMemoryIsDecodedFromThere() async throws {
        let bundle = try LoaderFixtures.bundle()
        let decoder = StandInDecoder()
        let loader = LoaderFixtures.loader(bundle: bundle, decoder: decoder)
        let request = LoaderFixtures.request(LoaderFixtures.photo(3))
        _ = await bundle.prefetch([request.url], size: request.size, scale: request.scale, accepting: [.png]).value
        #expect(try await loader.image(for: request).origin == .bundle)
        #expect(decoder.calls.map(\.fromFile) == [false])
    }
}
