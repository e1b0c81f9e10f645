import Foundation
import Testing
import WarmCacheTestSupport

@testable import WarmCacheBuilder

@Suite("Fetch: conditional requests")
struct FetchConditionalTests {
    static let sentinel = Array("the copy from the last build".utf8)

    @Test("An ETag comes back as If-None-Match; 304 leaves the destination untouched")
    func etagRoundTrip() async throws {
        let version1 = FixtureBytes.fakePNG(count: 3_000, seed: 1)
        try await withFetchHarness(routes: ["/img": .image(version1, etag: "\"v1\"")]) { harness in
            let first = try downloaded(try await harness.fetch("/img"))
            #expect(first.validators.etag == "\"v1\"")

            try Data(Self.sentinel).write(to: harness.destination())
            let second = try await harness.fetch("/img", validators: first.validators)
            guard case .notModified(let validators) = second else {
                Issue.record("expected 304, got \(second)")
                return
            }
            #expect(validators.etag == "\"v1\"")
            #expect(harness.server.requests(for: "/img").last?.header("If-None-Match") == "\"v1\"")
            #expect(try Array(Data(contentsOf: harness.destination())) == Self.sentinel)
            #expect(harness.directoryListing() == ["original.bin"])

            // The image changes on the server: the old ETag no longer matches.
            let version2 = FixtureBytes.fakePNG(count: 4_000, seed: 2)
            harness.server.setRoute("/img", .image(version2, etag: "\"v2\""))
            let third = try downloaded(try await harness.fetch("/img", validators: first.validators))
            #expect(third.validators.etag == "\"v2\"")
            #expect(third.sha256 != first.sha256)
            #expect(try Array(Data(contentsOf: harness.destination())) == version2)
        }
    }

    @Test("A Last-Modified date comes back as If-Modified-Since; 304 leaves the destination untouched")
    func lastModifiedRoundTrip() async throws {
        let modified = Date(timeIntervalSince1970: 1_700_000_000)
        let image = FixtureBytes.fakePNG(count: 2_000)
        try await withFetchHarness(routes: ["/img": .image(image, lastModified: modified)]) { harness in
            let first = try downloaded(try await harness.fetch("/img"))
            let lastModified = try #require(first.validators.lastModified)
            #expect(first.validators.etag == nil)
            #expect(lastModified == "Tue, 14 Nov 2023 22:13:20 GMT")

            try Data(Self.sentinel).write(to: harness.destination())
            let second = try await harness.fetch("/img", validators: first.validators)
            guard case .notModified(let validators) = second else {
                Issue.record("expected 304, got \(second)")
                return
            }
            #expect(validators.lastModified == lastModified)
            #expect(harness.server.requests(for: "/img").last?.header("If-Modified-Since") == lastModified)
            #expect(try Array(Data(contentsOf: harness.destination())) == Self.sentinel)

            // A newer file on the server is downloaded again.
            harness.server.setRoute("/img", .image(image + [0], lastModified: modified.addingTimeInterval(60)))
            let third = try downloaded(try await harness.fetch("/img", validators: first.validators))
            #expect(third.byteCount == image.count + 1)
        }
    }

    @Test("Without validators no conditional headers are sent, and empty validators count as none")
    func noValidators() async throws {
        try await withFetchHarness(routes: ["/img": .image(FixtureBytes.fakePNG(count: 100), etag: "\"e\"")]) { harness in
            _ = try downloaded(try await harness.fetch("/img", validators: CacheValidators()))
            let request = try #require(harness.server.requests(for: "/img").first)
            #expect(request.header("If-None-Match") == nil)
            #expect(request.header("If-Modified-Since") == nil)
        }
    }

    @Test("A 304 to an unconditional request is an error, not a silent success")
    func unexpected304() async throws {
        try await withFetchHarness(routes: ["/img": .response(status: 304, headers: [], body: [])]) { harness in
            let error = await harness.fetchError("/img")
            #expect(error?.kind == .httpStatus(304))
            #expect(harness.server.requestCount(for: "/img") == 1)
        }
    }
}
