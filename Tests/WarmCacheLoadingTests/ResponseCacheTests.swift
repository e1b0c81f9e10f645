import Foundation
import Testing
@testable import WarmCacheLoading
import WarmCacheTestSupport

/// The loader's own session caches responses by HTTP's rules, in a URLCache on disk. Whether a
/// response is served again is Foundation's to decide (Apple's URLSession honours Cache-Control;
/// swift-corelibs-foundation's cache did not serve a `max-age` response again here), so this
/// holds the wiring, not Foundation's behaviour.
@Suite struct ResponseCacheTests {
    @Test func theLoadersOwnSessionCachesByHTTPsRules() throws {
        let session = ImageDownloader.makeSession()
        let cache = try #require(session.configuration.urlCache)
        #expect(cache === ImageDownloader.sharedURLCache)
        #expect(cache.diskCapacity == 150 * 1024 * 1024)
        #expect(session.configuration.requestCachePolicy == .useProtocolCachePolicy)
    }

    @Test func anAppsSessionIsUsedAsItIs() {
        let own = URLSession(configuration: .ephemeral)
        let loader = ImageLoader(bundle: nil, decoder: StandInDecoder(),
                                 configuration: .init(session: own))
        #expect(loader.downloader?.session === own)
    }
}
