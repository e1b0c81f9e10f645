import Foundation
import Testing
import WarmCacheTestSupport

@testable import WarmCacheBuilder

@Suite("Fetch: concurrency")
struct FetchConcurrencyTests {
    let png = FixtureBytes.fakePNG(count: 8_000)

    @Test("Concurrent fetches of one URL share a single request")
    func coalescesSameDestination() async throws {
        // The delay keeps the first request open while the others arrive.
        try await withFetchHarness(routes: ["/same.png": .delayed(seconds: 0.5, .image(png))]) { harness in
            let originals = try await withThrowingTaskGroup(of: FetchedOriginal.self) { group in
                for _ in 0..<6 {
                    group.addTask { try downloaded(try await harness.fetch("/same.png")) }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(originals.count == 6)
            #expect(Set(originals.map(\.sha256)).count == 1)
            #expect(harness.server.requestCount(for: "/same.png") == 1)
            #expect(try Array(Data(contentsOf: harness.destination())) == png)
            #expect(harness.directoryListing() == ["original.bin"])
        }
    }

    @Test("Coalesced callers with different destinations each get their own complete file")
    func coalescesDifferentDestinations() async throws {
        try await withFetchHarness(routes: ["/same.png": .delayed(seconds: 0.5, .image(png))]) { harness in
            try await withThrowingTaskGroup(of: Void.self) { group in
                for index in 0..<3 {
                    group.addTask { _ = try downloaded(try await harness.fetch("/same.png", to: "copy\(index).png")) }
                }
                try await group.waitForAll()
            }
            #expect(harness.server.requestCount(for: "/same.png") == 1)
            #expect(harness.directoryListing() == ["copy0.png", "copy1.png", "copy2.png"])
            for index in 0..<3 {
                #expect(try Array(Data(contentsOf: harness.destination("copy\(index).png"))) == png)
            }
        }
    }

    @Test("Fetches that do not overlap in time are not coalesced")
    func sequentialFetchesAreSeparate() async throws {
        try await withFetchHarness(routes: ["/a.png": .image(png)]) { harness in
            _ = try await harness.fetch("/a.png")
            _ = try await harness.fetch("/a.png")
            #expect(harness.server.requestCount(for: "/a.png") == 2)
        }
    }

    @Test("The global limit bounds requests in flight")
    func globalLimit() async throws {
        let routes = Self.slowRoutes(count: 12)
        let configuration = fastConfiguration(concurrency: 3, perHost: 8)
        try await withFetchHarness(routes: routes, configuration: configuration) { harness in
            try await Self.fetchAll(12, with: harness)
            #expect(harness.server.totalRequestCount == 12)
            #expect(harness.server.maxConcurrentRequests <= 3)
            #expect(harness.server.maxConcurrentRequests >= 2, "requests should still overlap")
        }
    }

    @Test("The per-host limit bounds requests to one host, and hosts are counted separately")
    func perHostLimit() async throws {
        let routes = Self.slowRoutes(count: 8)
        let other = try await FixtureServer.start(routes: routes)
        let configuration = fastConfiguration(concurrency: 16, perHost: 2)
        do {
            try await withFetchHarness(routes: routes, configuration: configuration) { harness in
                try await withThrowingTaskGroup(of: Void.self) { group in
                    for index in 0..<8 {
                        group.addTask { _ = try await harness.fetch("/\(index).png", to: "a\(index).png") }
                        group.addTask {
                            _ = try await harness.fetcher.fetch(
                                other.url("/\(index).png"), to: harness.destination("b\(index).png"))
                        }
                    }
                    try await group.waitForAll()
                }
                #expect(harness.server.totalRequestCount == 8)
                #expect(other.totalRequestCount == 8)
                #expect(harness.server.maxConcurrentRequests <= 2)
                #expect(other.maxConcurrentRequests <= 2)
                #expect(harness.server.connectionCount <= 2, "the pool holds perHost connections per host")
            }
        } catch {
            try? await other.shutdown()
            throw error
        }
        try await other.shutdown()
    }

    @Test("Cancelling the only caller cancels the download and leaves no file")
    func cancellation() async throws {
        try await withFetchHarness(routes: ["/slow": .delayed(seconds: 30, .image(png))]) { harness in
            let task = Task { try await harness.fetch("/slow") }
            // Wait (bounded) until the request reached the server, then cancel.
            for _ in 0..<200 where harness.server.requestCount(for: "/slow") == 0 {
                try await Task.sleep(nanoseconds: 10_000_000)
            }
            task.cancel()
            let result = await task.result
            #expect(throws: CancellationError.self) { try result.get() }
            #expect(harness.directoryListing().isEmpty)
        }
    }

    /// `count` routes `/0.png` … that each answer after 0.2 s, so requests overlap.
    static func slowRoutes(count: Int) -> [String: FixtureRoute] {
        var routes: [String: FixtureRoute] = [:]
        for index in 0..<count {
            routes["/\(index).png"] = .delayed(seconds: 0.2, .image(FixtureBytes.fakePNG(count: 1_000, seed: UInt64(index))))
        }
        return routes
    }

    static func fetchAll(_ count: Int, with harness: FetchHarness) async throws {
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<count {
                group.addTask { _ = try downloaded(try await harness.fetch("/\(index).png", to: "\(index).png")) }
            }
            try await group.waitForAll()
        }
    }
}
