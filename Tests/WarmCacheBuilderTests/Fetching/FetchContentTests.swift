import Foundation
import Testing
import WarmCacheTestSupport

@testable import WarmCacheBuilder

@Suite("Fetch: content checks")
struct FetchContentTests {
    @Test("An HTML page served with 200 is rejected as not an image, without retries")
    func htmlPage() async throws {
        try await withFetchHarness(routes: ["/photo.jpg": .html()]) { harness in
            let error = try #require(await harness.fetchError("/photo.jpg"))
            #expect(error.kind == .notAnImage(sniffed: "HTML page", contentType: "text/html; charset=utf-8"))
            #expect(error.description.contains("the server returned an HTML page, not an image (Content-Type text/html"))
            #expect(error.attempts == 1)
            #expect(harness.server.requestCount(for: "/photo.jpg") == 1)
            #expect(harness.directoryListing().isEmpty)
        }
    }

    @Test("JSON and empty bodies are described")
    func otherNonImages() async throws {
        let routes: [String: FixtureRoute] = [
            "/api": .response(status: 200, headers: [("Content-Type", "application/json")], body: Array(#"{"error":"nope"}"#.utf8)),
            "/empty": .response(status: 200, headers: [], body: []),
        ]
        try await withFetchHarness(routes: routes) { harness in
            let json = await harness.fetchError("/api")
            #expect(json?.kind == .notAnImage(sniffed: "JSON document", contentType: "application/json"))
            let empty = await harness.fetchError("/empty")
            #expect(empty?.kind == .notAnImage(sniffed: "empty body", contentType: nil))
            #expect(empty?.description.contains("an empty body, not an image (no Content-Type)") == true)
        }
    }

    @Test("An SVG is accepted as an image")
    func svg() async throws {
        let svg = #"<?xml version="1.0"?><svg xmlns="http://www.w3.org/2000/svg" width="1" height="1"/>"#
        try await withFetchHarness(routes: ["/logo.svg": .image(Array(svg.utf8), contentType: "image/svg+xml")]) { harness in
            let original = try downloaded(try await harness.fetch("/logo.svg"))
            #expect(original.sniffedFormat == .svg)
        }
    }

    @Test("A declared Content-Length over maxBytes is rejected before the body is read")
    func tooLargeByContentLength() async throws {
        let big = FixtureBytes.fakePNG(count: 20_000)
        try await withFetchHarness(routes: ["/big": .image(big)], configuration: fastConfiguration(maxBytes: 10_000)) { harness in
            let error = await harness.fetchError("/big")
            #expect(error?.kind == .tooLarge(limit: 10_000, declared: 20_000))
            #expect(harness.server.requestCount(for: "/big") == 1)
            #expect(harness.directoryListing().isEmpty)
        }
    }

    @Test("A chunked body (no Content-Length) is cut off once it crosses maxBytes")
    func tooLargeWhileStreaming() async throws {
        let big = FixtureBytes.fakePNG(count: 200_000)
        // No time limit a busy machine could reach first (it took 35 s once beside the whole suite,
        // and its 10-second limit expired and the fetch was retried): the cut must be the size's.
        let configuration = fastConfiguration(requestTimeout: 600, maxBytes: 50_000)
        try await withFetchHarness(routes: ["/big": .chunked(.image(big))], configuration: configuration) { harness in
            let error = await harness.fetchError("/big")
            #expect(error?.kind == .tooLarge(limit: 50_000, declared: nil))
            // Decimal, as every byte count is written: 50,000 bytes are 50.0 KB (not 48.8).
            #expect(error?.description.contains("larger than the 50.0 KB limit") == true, "\(error?.description ?? "-")")
            // What arrived before the cut was downloaded all the same, and is counted.
            #expect((error?.bytesReceived ?? 0) > 50_000, "\(error?.bytesReceived ?? 0)")
            #expect(harness.server.requestCount(for: "/big") == 1)
            #expect(harness.directoryListing().isEmpty)
        }
    }

    @Test("A chunked body within the limit is downloaded")
    func chunkedWithinLimit() async throws {
        let image = FixtureBytes.fakePNG(count: 30_000)
        try await withFetchHarness(routes: ["/c": .chunked(.image(image))],
                                   configuration: fastConfiguration(requestTimeout: 600)) { harness in
            let original = try downloaded(try await harness.fetch("/c"))
            #expect(original.byteCount == image.count)
            #expect(harness.server.requests(for: "/c").count == 1)
        }
    }
}
