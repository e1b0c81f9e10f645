import Foundation
import Testing
import WarmCache
import WarmCacheBuilder
import WarmCacheTestSupport

/// Every byte received is counted in the report, including those of sources that then failed.
@Suite struct ReceivedBytesTests {
    @Test func bytesReadBySourcesThatFailedAreCounted() async throws {
        let big = try SourceImages.fixture("coins.png")
        let small = try SourceImages.distinct(1)[0]
        #expect(big.bytes.count > 20_000)
        let routes: [String: FixtureRoute] = [
            // No Content-Length: the body is read until it crosses the limit, then refused.
            "/big.jpg": .chunked(.image(big.bytes, contentType: big.contentType)),
            "/small.jpg": .image(small.bytes, contentType: small.contentType),
        ]
        try await withWorld(routes: routes) { scratch, server in
            let fetch = Manifests.fastFetch + "\n  max_bytes: 20KB"
            let manifest = try scratch.write(Manifests.yaml(urls: [server.url("/big.jpg"), server.url("/small.jpg")],
                                                            fetch: fetch), to: "manifest.yml")
            let report = try await Warm.run(manifest, options: Warm.options(cache: scratch.path("cache"))).published()
            #expect(report.status == .partial)
            let failed = try #require(report.sources.first { $0.status == .failed })
            #expect(failed.failure?.message.contains("20.0 KB limit") == true, "\(failed.failure?.message ?? "-")")
            #expect(failed.bytesDownloaded >= 20_000, "the refused body's bytes were received: \(failed.bytesDownloaded)")
            let fetched = try #require(report.sources.first { $0.status == .fetched })
            #expect(report.totals.bytesDownloaded == failed.bytesDownloaded + fetched.bytesDownloaded)
            #expect(fetched.bytesDownloaded == small.bytes.count)
        }
    }
}
