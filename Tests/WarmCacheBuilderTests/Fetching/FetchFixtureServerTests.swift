import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
import WarmCacheTestSupport

@testable import WarmCacheBuilder

/// The fixture server's own behaviours that the other suites do not already cover.
@Suite("Fetch: fixture server")
struct FetchFixtureServerTests {
    @Test("A directory route serves files with validators, 304s, and nothing outside the directory")
    func directoryRoute() async throws {
        let routes: [String: FixtureRoute] = ["/photos/": .directory(ExampleImages.directory)]
        try await withFetchHarness(routes: routes) { harness in
            let original = try downloaded(try await harness.fetch("/photos/coffee.png"))
            #expect(original.sha256 == ExampleImages.coffeeSHA256)
            #expect(original.contentType == "image/png")
            #expect(original.validators.etag != nil)
            #expect(original.validators.lastModified != nil)

            let again = try await harness.fetch("/photos/coffee.png", validators: original.validators)
            guard case .notModified = again else {
                Issue.record("expected 304, got \(again)")
                return
            }
            for path in ["/photos/../../Package.swift", "/photos/%2e%2e/Images/coffee.png", "/photos/nope.png", "/photos/"] {
                let error = await harness.fetchError(path)
                #expect(error?.kind == .httpStatus(404), "\(path)")
            }
        }
    }

    @Test("Every response carries a Date header in IMF-fixdate, from the real clock or the one a test sets")
    func dateHeader() async throws {
        #expect(HTTPDateFormat.string(from: Date(timeIntervalSince1970: 784_111_777)) == "Sun, 06 Nov 1994 08:49:37 GMT")
        #expect(HTTPDateFormat.string(from: Date(timeIntervalSince1970: 1_750_000_000.9)) == "Sun, 15 Jun 2025 15:06:40 GMT")
        let server = try await FixtureServer.start(routes: ["/a": .status(200, body: "a")])
        let url = server.url("/a")
        let now = try #require(try await Self.dateHeader(url).flatMap(HTTPDateFormat.date(from:)))
        #expect(abs(now.timeIntervalSinceNow) < 60)
        server.setDate(Date(timeIntervalSince1970: 784_111_777.5))
        #expect(try await Self.dateHeader(url) == "Sun, 06 Nov 1994 08:49:37 GMT")
        try await server.shutdown()
    }

    private static func dateHeader(_ url: URL) async throws -> String? {
        let (_, response) = try await URLSession.shared.data(from: url)
        return (response as? HTTPURLResponse)?.value(forHTTPHeaderField: "Date")
    }

    @Test("Requests are counted per path, query strings aside, and statistics can be reset")
    func counting() async throws {
        try await withFetchHarness(routes: ["/a.png": .image(FixtureBytes.fakePNG(count: 100))]) { harness in
            _ = try await harness.fetch("/a.png?w=1", to: "1.png")
            _ = try await harness.fetch("/a.png?w=2", to: "2.png")
            #expect(harness.server.requestCount(for: "/a.png") == 2)
            #expect(harness.server.requests(for: "/a.png").map(\.uri) == ["/a.png?w=1", "/a.png?w=2"])

            harness.server.resetStatistics()
            #expect(harness.server.requestCount(for: "/a.png") == 0)
            #expect(harness.server.totalRequestCount == 0)

            harness.server.removeRoute("/a.png")
            #expect(await harness.fetchError("/a.png")?.kind == .httpStatus(404))
        }
    }
}
