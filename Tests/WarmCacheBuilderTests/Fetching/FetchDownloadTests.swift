import Foundation
import Testing
import WarmCacheTestSupport

@testable import WarmCacheBuilder

@Suite("Fetch: downloads")
struct FetchDownloadTests {
    @Test("A PNG is streamed to its destination with the right digest, size and format")
    func downloadsPNG() async throws {
        let png = try ExampleImages.bytes("coffee.png")
        try await withFetchHarness(routes: ["/coffee.png": .image(png, etag: "\"c1\"")]) { harness in
            let original = try downloaded(try await harness.fetch("/coffee.png", to: "coffee.png"))

            #expect(original.sha256 == ExampleImages.coffeeSHA256)
            #expect(original.byteCount == png.count)
            #expect(original.sniffedFormat == .png)
            #expect(original.contentType == "image/png")
            #expect(original.validators == CacheValidators(etag: "\"c1\""))
            #expect(original.finalURL == harness.server.url("/coffee.png"))
            #expect(original.attempts == 1)
            #expect(try Array(Data(contentsOf: harness.destination("coffee.png"))) == png)
            #expect(harness.directoryListing() == ["coffee.png"], "no staging file may be left behind")
        }
    }

    @Test("A JPEG served as application/octet-stream is still recognised by its bytes")
    func sniffsInsteadOfTrustingContentType() async throws {
        let jpeg = try ExampleImages.bytes("rocket.jpg")
        try await withFetchHarness(routes: ["/rocket": .image(jpeg, contentType: "application/octet-stream")]) { harness in
            let original = try downloaded(try await harness.fetch("/rocket"))
            #expect(original.sniffedFormat == .jpeg)
            #expect(original.sha256 == ExampleImages.rocketSHA256)
        }
    }

    @Test("An existing destination is replaced whole")
    func replacesDestination() async throws {
        let png = FixtureBytes.fakePNG(count: 10_000)
        try await withFetchHarness(routes: ["/a.png": .image(png)]) { harness in
            try Data("old contents".utf8).write(to: harness.destination())
            _ = try downloaded(try await harness.fetch("/a.png"))
            #expect(try Array(Data(contentsOf: harness.destination())) == png)
        }
    }

    @Test("A missing destination directory is created")
    func createsDestinationDirectory() async throws {
        try await withFetchHarness(routes: ["/a.png": .image(FixtureBytes.fakePNG(count: 100))]) { harness in
            _ = try downloaded(try await harness.fetch("/a.png", to: "nested/deeper/a.png"))
            #expect(FileManager.default.fileExists(atPath: harness.destination("nested/deeper/a.png").path))
        }
    }

    @Test("Sequential downloads from one host reuse one connection")
    func reusesConnections() async throws {
        var routes: [String: FixtureRoute] = [:]
        for index in 0..<10 { routes["/\(index).png"] = .image(FixtureBytes.fakePNG(count: 5_000, seed: UInt64(index))) }
        try await withFetchHarness(routes: routes) { harness in
            for index in 0..<10 {
                _ = try downloaded(try await harness.fetch("/\(index).png", to: "\(index).png"))
            }
            #expect(harness.server.totalRequestCount == 10)
            #expect(harness.server.connectionCount == 1)
        }
    }

    @Test("Requests carry the User-Agent, an image Accept header and the configured headers")
    func sendsHeaders() async throws {
        let configuration = fastConfiguration(headers: [(name: "X-Api-Key", value: "k-123")])
        try await withFetchHarness(routes: ["/a.png": .image(FixtureBytes.fakePNG(count: 100))], configuration: configuration) { harness in
            _ = try await harness.fetch("/a.png")
            let request = try #require(harness.server.requests(for: "/a.png").first)
            #expect(request.method == "GET")
            #expect(request.header("User-Agent") == "warm-cache/1")
            #expect(request.header("Accept")?.hasPrefix("image/*") == true)
            #expect(request.header("X-Api-Key") == "k-123")
            #expect(request.header("If-None-Match") == nil)
        }
    }

    @Test("Only http and https URLs are fetched", arguments: ["ftp://127.0.0.1/a.png", "file:///etc/hosts", "data:image/png;base64,AAAA"])
    func rejectsOtherSchemes(_ text: String) async throws {
        try await withFetchHarness { harness in
            let url = try #require(URL(string: text))
            await #expect {
                try await harness.fetcher.fetch(url, to: harness.destination())
            } throws: { error in
                guard let error = error as? FetchError, case .unsupportedScheme = error.kind else { return false }
                return error.attempts == 0 && error.description.contains("only http and https")
            }
        }
    }

    @Test("withFetcher shuts the fetcher down after use")
    func withFetcherShutsDown() async throws {
        let server = try await FixtureServer.start(routes: ["/a.png": .image(FixtureBytes.fakePNG(count: 100))])
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("warmcache-with-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let used = try await ImageFetcher.withFetcher(settings: fastConfiguration(), logger: .init(label: "test")) { fetcher in
            _ = try downloaded(try await fetcher.fetch(server.url("/a.png"), to: directory.appendingPathComponent("a.png")))
            return fetcher
        }
        await #expect {
            try await used.fetch(server.url("/a.png"), to: directory.appendingPathComponent("b.png"))
        } throws: { error in
            (error as? FetchError)?.kind == .shutDown && error.localizedDescription.contains("shut down")
        }
        try await server.shutdown()
    }

    @Test("Shutting down fails the downloads in flight at once, with a clear error")
    func shutdownWithDownloadsInFlight() async throws {
        try await withFetchHarness(routes: ["/slow.png": .delayed(seconds: 40, .image(FixtureBytes.fakePNG(count: 100)))]) {
            harness in
            let fetcher = ImageFetcher(settings: fastConfiguration(), logger: .init(label: "test"))
            let inFlight = Task { try await fetcher.fetch(harness.server.url("/slow.png"), to: harness.destination()) }
            try await Task.sleep(nanoseconds: 300_000_000)
            let started = Date()
            try await fetcher.shutdown()
            await #expect {
                try await inFlight.value
            } throws: { error in
                (error as? FetchError)?.kind == .shutDown
            }
            #expect(Date().timeIntervalSince(started) < 20, "the download waited for its server instead of stopping")
        }
    }

    @Test("After shutdown, fetch fails with a clear error")
    func fetchAfterShutdown() async throws {
        try await withFetchHarness(routes: ["/a.png": .image(FixtureBytes.fakePNG(count: 100))]) { harness in
            let fetcher = ImageFetcher(settings: fastConfiguration(), logger: .init(label: "test"))
            try await fetcher.shutdown()
            await #expect {
                try await fetcher.fetch(harness.server.url("/a.png"), to: harness.destination())
            } throws: { error in
                (error as? FetchError)?.kind == .shutDown
            }
        }
    }
}
