import Foundation
import Testing
import WarmCacheTestSupport

@testable import WarmCacheBuilder

@Suite("Fetch: timeouts")
struct FetchTimeoutTests {
    let png = FixtureBytes.fakePNG(count: 4_000)

    @Test("A server that is slow to answer trips the request timeout (retried: it has answered before)")
    func slowHeaders() async throws {
        // Long enough that the quick answer comes within it however busy the machine is (its
        // retry would fail the quick fetch otherwise); the slow one answers only after 40 s.
        let configuration = fastConfiguration(requestTimeout: 5, retries: 1)
        let routes: [String: FixtureRoute] = ["/slow": .delayed(seconds: 40, .image(png)), "/quick": .image(png)]
        try await withFetchHarness(routes: routes, configuration: configuration) { harness in
            // A host that has never answered would be written off instead (FetchRetryTests).
            _ = try await harness.fetch("/quick")
            try? FileManager.default.removeItem(at: harness.destination())
            let error = await harness.fetchError("/slow")
            // A timeout on both attempts can only come from the 5 s deadline (the server would
            // answer after 40 s); a wall-clock bound would measure how busy the machine is.
            #expect(error?.kind == .timeout(seconds: 5))
            #expect(error?.attempts == 2)
            #expect(error?.description.contains("timed out after 5 s") == true)
            #expect(harness.directoryListing().isEmpty)
        }
    }

    @Test("A body trickling past the deadline trips the timeout too (the whole request is bounded)")
    func slowBody() async throws {
        // Head at once, then 100 bytes every 0.5 s: 20 s in all, far over the 0.6 s limit.
        let route = FixtureRoute.trickled(chunkSize: 100, interval: 0.5, .image(png))
        let configuration = fastConfiguration(requestTimeout: 0.6, retries: 0)
        try await withFetchHarness(routes: ["/trickle": route], configuration: configuration) { harness in
            let error = await harness.fetchError("/trickle")
            // The kind proves the deadline cut the transfer; a wall-clock bound would only
            // measure how busy the machine is.
            #expect(error?.kind == .timeout(seconds: 0.6))
            #expect(harness.directoryListing().isEmpty, "the partial staging file must be removed")
        }
    }

    @Test("A slow but timely trickle completes")
    func trickleWithinDeadline() async throws {
        let route = FixtureRoute.trickled(chunkSize: 1_000, interval: 0.02, .image(png))
        try await withFetchHarness(routes: ["/trickle": route]) { harness in
            let original = try downloaded(try await harness.fetch("/trickle"))
            #expect(original.byteCount == png.count)
        }
    }
}
