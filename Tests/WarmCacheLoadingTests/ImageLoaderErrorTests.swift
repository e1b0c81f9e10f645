import Foundation
import Testing
import WarmCache
@testable import WarmCacheLoading
import WarmCacheTestSupport

/// What fails, and the plain words that say so, with the URL.
@Suite(.timeLimit(.minutes(1))) struct ImageLoaderErrorTests {
    private func failure(_ loader: ImageLoader, _ request: ImageRequest) async -> ImageLoadingError? {
        do {
            _ = try await loader.image(for: request)
            return nil
        } catch {
            return error as? ImageLoadingError
        }
    }

    @Test func aMissingImageNamesTheStatus() async throws {
        let server = try await FixtureServer.start()
        let request = LoaderFixtures.request(server.url("/gone.png"))
        let error = try #require(await failure(LoaderFixtures.loader(bundle: nil), request))
        #expect(error.reason == .httpStatus(404))
        #expect(error.description.hasPrefix("The image at \(request.url.absoluteString) could not be loaded: "
                                            + "the server answered 404 (Not Found)."))
        #expect(isPlain(error.description))
        #expect(!error.reason.isWorthRetrying)
        try await server.shutdown()
    }

    @Test func aPageInsteadOfAnImageSaysWhatCame() async throws {
        let server = try await FixtureServer.start(routes: ["/login": .html()])
        let decoder = StandInDecoder()
        let request = LoaderFixtures.request(server.url("/login"))
        let error = try #require(await failure(LoaderFixtures.loader(bundle: nil, decoder: decoder), request))
        guard case .undecodableBody(_, let type, _) = error.reason else {
            Issue.record("expected an undecodable body, got \(error)")
            return
        }
        #expect(type == "text/html")
        #expect(error.description.contains(request.url.absoluteString))
        #expect(error.description.contains("bytes of text/html) is not an image"))
        #expect(isPlain(error.description))
        try await server.shutdown()
    }

    @Test func aRefusedConnectionSaysTheServerCouldNotBeReached() async throws {
        let port = try ClosedPort()
        let request = LoaderFixtures.request(port.url("/a.png"))
        let error = try #require(await failure(LoaderFixtures.loader(bundle: nil), request))
        guard case .unreachable = error.reason else {
            Issue.record("expected an unreachable server, got \(error)")
            return
        }
        #expect(error.description.hasPrefix("The image at \(request.url.absoluteString) could not be loaded: "
                                            + "the server could not be reached ("))
        #expect(isPlain(error.description))
        #expect(error.reason.isWorthRetrying)
    }

    @Test func withTheNetworkOffAnImageOutsideTheBundleFails() async throws {
        let loader = LoaderFixtures.loader(bundle: try LoaderFixtures.bundle(), usesNetwork: false)
        let request = LoaderFixtures.request(URL(string: "https://cdn.example.com/elsewhere.png")!)
        let error = try #require(await failure(loader, request))
        #expect(error.reason == .notInBundle)
        #expect(error.description.hasPrefix("The image at https://cdn.example.com/elsewhere.png is not in the bundle, "
                                            + "and loading images from the network is turned off."))
        #expect(isPlain(error.description))
    }

    @Test func aBlobThatDoesNotDecodeNamesItsFile() async throws {
        var fixture = try FixtureBundle()
        let url = LoaderFixtures.photo(7)
        fixture.add(url.absoluteString, width: 100, scale: 2, pixelSize: PixelSize(width: 200, height: 200),
                    bytes: Data("not an image at all".utf8))
        let loader = LoaderFixtures.loader(bundle: try CacheBundle(contentsOf: fixture.write()), usesNetwork: false)
        let error = try #require(await failure(loader, LoaderFixtures.request(url)))
        guard case .undecodableBlob(let path, _) = error.reason else {
            Issue.record("expected an undecodable blob, got \(error)")
            return
        }
        #expect(path.hasPrefix("objects/") && path.hasSuffix(".png"))
        #expect(error.description.contains("\(url.absoluteString) could not be shown: the bundle's file \(path) "
                                           + "could not be decoded (the bytes start with neither a PNG nor a JPEG header)."))
        #expect(isPlain(error.description))
    }
}
