import Foundation
import Testing
import WarmCacheTestSupport

@testable import WarmCacheBuilder

@Suite("Fetch: retries")
struct FetchRetryTests {
    let png = FixtureBytes.fakePNG(count: 2_000)

    @Test("4xx answers are final: one request, no retry", arguments: [400, 401, 403, 404, 410])
    func clientErrorsAreNotRetried(_ status: Int) async throws {
        try await withFetchHarness(routes: ["/x": .status(status)]) { harness in
            let error = await harness.fetchError("/x")
            #expect(error?.kind == .httpStatus(status))
            #expect(error?.attempts == 1)
            #expect(harness.server.requestCount(for: "/x") == 1)
            #expect(harness.directoryListing().isEmpty)
        }
    }

    @Test("404 names the URL and suggests checking it")
    func notFoundMessage() async throws {
        try await withFetchHarness(routes: [:]) { harness in
            let error = try #require(await harness.fetchError("/missing.png"))
            #expect(error.description.contains(harness.server.url("/missing.png").absoluteString))
            #expect(error.description.contains("HTTP 404 Not Found"))
            #expect(error.description.contains("Check the URL"))
        }
    }

    @Test("500 then 200 succeeds on the second attempt")
    func serverErrorThenSuccess() async throws {
        try await withFetchHarness(routes: ["/x": .failing(times: 1, status: 500, then: .image(png))]) { harness in
            let original = try downloaded(try await harness.fetch("/x"))
            #expect(original.attempts == 2)
            #expect(harness.server.requestCount(for: "/x") == 2)
        }
    }

    @Test("A server that keeps failing is tried retries + 1 times")
    func givesUp() async throws {
        try await withFetchHarness(routes: ["/x": .status(503)], configuration: fastConfiguration(retries: 2)) { harness in
            let error = await harness.fetchError("/x")
            #expect(error?.kind == .httpStatus(503))
            #expect(error?.attempts == 3)
            #expect(error?.description.contains("gave up after 3 attempts") == true)
            #expect(harness.server.requestCount(for: "/x") == 3)
        }
    }

    @Test("429 with Retry-After in seconds: the retry waits at least that long")
    func retryAfterSeconds() async throws {
        let route = FixtureRoute.sequence([.tooManyRequests(retryAfter: "1"), .image(png)])
        try await withFetchHarness(routes: ["/x": route]) { harness in
            let original = try downloaded(try await harness.fetch("/x"))
            #expect(original.attempts == 2)
            let requests = harness.server.requests(for: "/x")
            try #require(requests.count == 2)
            // Backoff alone is at most 0.02 s here: only Retry-After explains a 1 s gap.
            #expect(requests[1].receivedAt.timeIntervalSince(requests[0].receivedAt) >= 0.95)
        }
    }

    @Test("429 with Retry-After as an HTTP-date is honoured too")
    func retryAfterDate() async throws {
        // Far enough ahead that a slow harness start (tests run in parallel) cannot eat it up.
        let date = HTTPDateFormat.string(from: Date().addingTimeInterval(5))
        let route = FixtureRoute.sequence([.tooManyRequests(retryAfter: date), .image(png)])
        try await withFetchHarness(routes: ["/x": route]) { harness in
            _ = try downloaded(try await harness.fetch("/x"))
            let requests = harness.server.requests(for: "/x")
            try #require(requests.count == 2)
            // An HTTP-date names an instant with whole-second resolution, so the gap between the two
            // requests depends on when the first one happened to arrive; what must hold is that the
            // retry does not come before the instant the server named. (Backoff alone is 0.02 s.)
            let named = try #require(HTTPDate.parse(date))
            #expect(requests[1].receivedAt >= named.addingTimeInterval(-0.05),
                    "retried \(named.timeIntervalSince(requests[1].receivedAt)) s before the Retry-After date")
        }
    }

    @Test("An absurd Retry-After is capped by maxRetryAfter")
    func retryAfterCapped() async throws {
        let route = FixtureRoute.sequence([.tooManyRequests(retryAfter: "86400"), .image(png)])
        try await withFetchHarness(routes: ["/x": route], configuration: fastConfiguration(maxRetryAfter: 0.1)) { harness in
            _ = try downloaded(try await harness.fetch("/x"))
            // The gap between the two requests, not the harness's start-up, shows the cap.
            let requests = harness.server.requests(for: "/x")
            try #require(requests.count == 2)
            #expect(requests[1].receivedAt.timeIntervalSince(requests[0].receivedAt) < 30,
                    "a day-long Retry-After must have been capped")
        }
    }

    @Test("A truncated body is retried and, if it stays truncated, fails without leaving a file")
    func truncatedBody() async throws {
        let route = FixtureRoute.truncated(afterBytes: 500, .image(png))
        try await withFetchHarness(routes: ["/x": route], configuration: fastConfiguration(retries: 1)) { harness in
            let error = await harness.fetchError("/x")
            #expect(error?.kind == .truncated(expected: png.count, received: 500))
            #expect(error?.attempts == 2)
            #expect(harness.server.requestCount(for: "/x") == 2)
            #expect(harness.directoryListing().isEmpty, "neither the destination nor a staging file may exist")
        }
    }

    @Test("A truncated body followed by a complete one succeeds")
    func truncatedThenComplete() async throws {
        let route = FixtureRoute.sequence([.truncated(afterBytes: 100, .image(png)), .image(png)])
        try await withFetchHarness(routes: ["/x": route]) { harness in
            let original = try downloaded(try await harness.fetch("/x"))
            #expect(original.byteCount == png.count)
            #expect(original.attempts == 2)
            #expect(harness.directoryListing() == ["original.bin"])
        }
    }

    @Test("A refused connection fails at once, without retries, and the host's next download too")
    func connectionRefused() async throws {
        // A port where nothing listens (and no other test's server can start meanwhile).
        let closed = try ClosedPort()
        let url = closed.url("/gone.png")
        let sibling = closed.url("/also-gone.png")
        // Default settings apart from the retries, which must not be used for a dead host.
        var configuration = FetchSettings()
        configuration.retries = 5
        try await withFetchHarness(configuration: configuration) { harness in
            let started = Date()
            for target in [url, sibling] {
                do {
                    _ = try await harness.fetcher.fetch(target, to: harness.destination())
                    Issue.record("expected a connection failure")
                } catch let error as FetchError {
                    guard case .cannotConnect(let host, let reason) = error.kind else {
                        Issue.record("unexpected kind \(error.kind)")
                        continue
                    }
                    #expect(host == "127.0.0.1:\(url.port!)")
                    #expect(reason.contains("refused"), "\(reason)")
                    #expect(error.attempts == 1)
                    #expect(!error.description.contains("errno"), "\(error)")
                }
            }
            // A refusal fails on its first connection attempt, and the second at once; the bound
            // guards against waiting out connect timeouts or retries, with room for a busy machine.
            #expect(Date().timeIntervalSince(started) < 20)
        }
        withExtendedLifetime(closed) {}
    }

    @Test("A host that never answers fails after one connect timeout, without retries, and its next download at once")
    func silentHostIsWrittenOff() async throws {
        let silent = try SilentPort()
        var configuration = FetchSettings()
        configuration.connectTimeout = 1
        try await expectWrittenOff([silent.url("/a.png"), silent.url("/b.png")], configuration: configuration,
                                   kind: .connectTimeout(host: "127.0.0.1:\(silent.port)", seconds: 1),
                                   describedAs: "no answer within 1 s")
        withExtendedLifetime(silent) {}
    }

    @Test("A host that takes connections but never responds fails after one request timeout, without retries, and its next download at once")
    func hungHostIsWrittenOff() async throws {
        let hung = try HungPort()
        var configuration = FetchSettings()
        configuration.connectTimeout = 1
        configuration.requestTimeout = 1
        try await expectWrittenOff([hung.url("/a.png"), hung.url("/b.png")], configuration: configuration,
                                   kind: .noResponse(host: "127.0.0.1:\(hung.port)", seconds: 1),
                                   describedAs: "accepted the connection but sent no response within 1 s")
        withExtendedLifetime(hung) {}
    }

    /// Fetches `urls` of one host in turn, expecting each to fail with `kind` after exactly one
    /// attempt although retries are allowed: the first waited out its timeout, the later ones
    /// found the host written off. (Attempts, not wall time, prove it.)
    private func expectWrittenOff(_ urls: [URL], configuration: FetchSettings, kind: FetchError.Kind,
                                  describedAs text: String, sourceLocation: SourceLocation = #_sourceLocation)
        async throws {
        var configuration = configuration
        configuration.retries = 5  // must not be used for a host that never answered
        try await withFetchHarness(configuration: configuration) { harness in
            for target in urls {
                do {
                    _ = try await harness.fetcher.fetch(target, to: harness.destination())
                    Issue.record("expected \(kind)", sourceLocation: sourceLocation)
                } catch let error as FetchError {
                    #expect(error.kind == kind, sourceLocation: sourceLocation)
                    #expect(error.attempts == 1, sourceLocation: sourceLocation)
                    #expect(error.description.contains(text), "\(error)", sourceLocation: sourceLocation)
                }
            }
        }
    }
}
