import Foundation
import Testing
import WarmCache
@testable import WarmCacheLoading
import WarmCacheTestSupport

/// Identical requests in flight share one download and one decode; a caller that leaves stops
/// only its own wait, and the last one to leave stops the work.
@Suite(.timeLimit(.minutes(1))) struct CoalescingTests {
    private func key(_ request: ImageRequest, network: Bool) -> DecodedImageKey {
        DecodedImageKey(bytes: .url(request.url), maxPixelSize: request.maxPixelSize)
    }

    @Test func concurrentIdenticalBundleRequestsShareOneDecode() async throws {
        let gate = DecoderGate()
        let decoder = StandInDecoder(gate: gate)
        let loader = LoaderFixtures.loader(bundle: try LoaderFixtures.bundle(), decoder: decoder)
        let request = LoaderFixtures.request(LoaderFixtures.photo(1))
        let decodeKey = try ImageSource.of(request, in: loader.bundle, accepting: [.png, .jpeg]).key(for: request)
        let waiters = (0..<8).map { _ in Task { try await loader.image(for: request) } }
        try await waitUntil { loader.decodes.waiterCount(for: decodeKey) == 8 }
        gate.open()
        for waiter in waiters {
            #expect(try await waiter.value.origin == .bundle)
        }
        #expect(decoder.callCount == 1)
    }

    @Test func concurrentIdenticalNetworkRequestsShareOneDownloadAndOneDecode() async throws {
        let held = FixtureGate()
        let server = try await FixtureServer.start(routes: ["/a.png": .held(held, LoaderFixtures.served(width: 300, height: 300))])
        let decoder = StandInDecoder()
        let loader = LoaderFixtures.loader(bundle: nil, decoder: decoder)
        let request = LoaderFixtures.request(server.url("/a.png"))
        let larger = LoaderFixtures.request(request.url, side: 150)
        let waiters = (0..<8).map { _ in Task { try await loader.image(for: request) } }
        let other = Task { try await loader.image(for: larger) }
        try await waitUntil {
            loader.decodes.waiterCount(for: key(request, network: true)) == 8
                && loader.downloads.waiterCount(for: request.url) == 2
        }
        held.open()
        for waiter in waiters {
            #expect(try await waiter.value.image.pixelSize == PixelSize(width: 200, height: 200))
        }
        #expect(try await other.value.image.pixelSize == PixelSize(width: 300, height: 300))
        #expect(server.requestCount(for: "/a.png") == 1)
        #expect(decoder.callCount == 2)  // one per size, from one download
        try await server.shutdown()
    }

    @Test func aCallerThatLeavesDoesNotStopTheOthers() async throws {
        let held = FixtureGate()
        let server = try await FixtureServer.start(routes: ["/a.png": .held(held, LoaderFixtures.served(width: 64, height: 64))])
        let loader = LoaderFixtures.loader(bundle: nil)
        let request = LoaderFixtures.request(server.url("/a.png"))
        let leaving = Task { try await loader.image(for: request) }
        let staying = Task { try await loader.image(for: request) }
        try await waitUntil {
            loader.decodes.waiterCount(for: key(request, network: true)) == 2 && server.requestCount(for: "/a.png") == 1
        }
        leaving.cancel()
        await #expect(throws: CancellationError.self) { try await leaving.value }
        #expect(loader.decodes.waiterCount(for: key(request, network: true)) == 1)
        held.open()
        #expect(try await staying.value.origin == .network)
        #expect(server.requestCount(for: "/a.png") == 1)
        try await server.shutdown()
    }

    @Test func whenTheLastCallerLeavesTheDownloadIsCancelled() async throws {
        let held = FixtureGate()
        let server = try await FixtureServer.start(routes: ["/a.png": .held(held, LoaderFixtures.served(width: 64, height: 64))])
        let decoder = StandInDecoder()
        let loader = LoaderFixtures.loader(bundle: nil, decoder: decoder)
        let request = LoaderFixtures.request(server.url("/a.png"))
        let caller = Task { try await loader.image(for: request) }
        try await waitUntil { server.requestCount(for: "/a.png") == 1 && loader.downloads.task(for: request.url) != nil }
        let download = try #require(loader.downloads.task(for: request.url))

        caller.cancel()
        await #expect(throws: CancellationError.self) { try await caller.value }
        #expect(loader.decodes.waiterCount(for: key(request, network: true)) == 0)
        #expect(loader.downloads.task(for: request.url) == nil)
        // The server still holds its answer: the transfer can only have ended by being cancelled.
        await download.value
        #expect(!held.isOpen && decoder.callCount == 0)

        held.open()
        #expect(try await loader.image(for: request).origin == .network)  // a new caller starts afresh
        #expect(server.requestCount(for: "/a.png") == 2)
        try await server.shutdown()
    }

    @Test func aDecodeNotYetStartedIsSkippedWhenItsCallerLeaves() async throws {
        let gate = DecoderGate()
        let decoder = StandInDecoder(gate: gate)
        let loader = LoaderFixtures.loader(bundle: try LoaderFixtures.bundle(), decoder: decoder, decodeConcurrency: 1)
        let running = Task { try await loader.image(for: LoaderFixtures.request(LoaderFixtures.photo(1))) }
        try await waitUntil { gate.arrivals == 1 }
        let waiting = Task { try await loader.image(for: LoaderFixtures.request(LoaderFixtures.photo(2))) }
        try await waitUntil { loader.decodeQueue.waitingCount == 1 }

        waiting.cancel()
        await #expect(throws: CancellationError.self) { try await waiting.value }
        #expect(loader.decodeQueue.waitingCount == 0)
        gate.open()
        #expect(try await running.value.origin == .bundle)
        #expect(decoder.callCount == 1)
        #expect(loader.cachedImage(for: LoaderFixtures.request(LoaderFixtures.photo(2))) == nil)
    }
}
