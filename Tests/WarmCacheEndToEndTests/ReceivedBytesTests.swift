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

    /// A body cut off part-way (sent twice: the retry too), a body that is not an image, and one
    /// cut off once then sent whole: what arrived of each is in its source's report, in the
    /// totals, and in the summary line.
    @Test func bytesOfCutOffAndInvalidBodiesAreInTheReportAndTheSummary() async throws {
        let big = try SourceImages.fixture("coins.png")
        let small = try SourceImages.distinct(1)[0]
        let page = Array(repeating: UInt8(ascii: "x"), count: 3_000)
        let routes: [String: FixtureRoute] = [
            "/cut.png": .truncated(afterBytes: 5_000, .image(big.bytes, contentType: big.contentType)),
            "/page.png": .response(status: 200, headers: [("Content-Type", "image/png")], body: page),
            "/small.jpg": .image(small.bytes, contentType: small.contentType),
            "/again.png": .sequence([.truncated(afterBytes: 4_000, .image(big.bytes, contentType: big.contentType)),
                                     .image(big.bytes, contentType: big.contentType)]),
        ]
        try await withWorld(routes: routes) { scratch, server in
            let urls = ["/cut.png", "/page.png", "/small.jpg", "/again.png"].map { server.url($0) }
            try scratch.write(Manifests.yaml(urls: urls), to: "manifest.yml")
            let run = try await CLI.run(["warm", "manifest.yml", "--cache-dir", "cache", "--report", "report.json"],
                                        in: scratch.url)
            #expect(run.status != 0, "\(run)")
            let report = try JSONSerialization.jsonObject(with: Data(contentsOf: scratch.path("report.json"))) as? [String: Any]
            let sources = try #require(report?["sources"] as? [[String: Any]])
            func bytes(_ path: String) -> Int {
                sources.first { ($0["identifier"] as? String)?.hasSuffix(path) == true }?["bytesDownloaded"] as? Int ?? -1
            }
            // Retried once: two cut-off bodies of 5000 bytes.
            #expect(bytes("/cut.png") == 10_000, "\(sources)")
            #expect(bytes("/page.png") >= 3_000, "\(sources)")
            #expect(bytes("/small.jpg") == small.bytes.count)
            #expect(bytes("/again.png") == 4_000 + big.bytes.count, "\(sources)")
            let total = bytes("/cut.png") + bytes("/page.png") + bytes("/small.jpg") + bytes("/again.png")
            let totals = try #require(report?["totals"] as? [String: Any])
            #expect(totals["bytesDownloaded"] as? Int == total, "\(totals)")
            #expect(run.stdout.contains("bytes:    \(ByteCountText.format(total)) downloaded"), "\(run.stdout)")
        }
    }
}
