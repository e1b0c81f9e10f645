import Foundation
import Testing
import WarmCacheTestSupport

@testable import WarmCacheBuilder

@Suite("Fetch: redirects")
struct FetchRedirectTests {
    let png = FixtureBytes.fakePNG(count: 1_000)

    @Test("A chain of 301, 302 (relative Location) and 307 is followed to the image")
    func followsChain() async throws {
        let routes: [String: FixtureRoute] = [
            "/start": .redirect(status: 301, location: "/middle"),
            "/middle": .redirect(status: 302, location: "last"),
            "/last": .redirect(status: 307, location: "/final.png"),
            "/final.png": .image(png),
        ]
        try await withFetchHarness(routes: routes) { harness in
            let original = try downloaded(try await harness.fetch("/start"))
            #expect(original.finalURL == harness.server.url("/final.png"))
            #expect(original.attempts == 1)
            #expect(harness.server.requestCount(for: "/final.png") == 1)
        }
    }

    @Test("A redirect loop is reported as such, without retries")
    func loop() async throws {
        let routes: [String: FixtureRoute] = [
            "/a": .redirect(status: 302, location: "/b"),
            "/b": .redirect(status: 302, location: "/a"),
        ]
        try await withFetchHarness(routes: routes) { harness in
            let error = await harness.fetchError("/a")
            #expect(error?.kind == .tooManyRedirects(limit: 5, loop: true))
            #expect(error?.attempts == 1)
            #expect(harness.server.requestCount(for: "/a") == 1)
            #expect(harness.server.requestCount(for: "/b") == 1)
        }
    }

    @Test("More redirects than allowed is tooManyRedirects")
    func tooMany() async throws {
        var routes: [String: FixtureRoute] = ["/r4": .image(png)]
        for hop in 0..<4 { routes["/r\(hop)"] = .redirect(status: 302, location: "/r\(hop + 1)") }
        try await withFetchHarness(routes: routes, configuration: fastConfiguration(maxRedirects: 3)) { harness in
            let error = await harness.fetchError("/r0")
            #expect(error?.kind == .tooManyRedirects(limit: 3, loop: false))
            #expect(error?.description.contains("more than 3 redirects") == true)
            #expect(harness.server.requestCount(for: "/r4") == 0)
        }
        try await withFetchHarness(routes: routes, configuration: fastConfiguration(maxRedirects: 4)) { harness in
            _ = try downloaded(try await harness.fetch("/r0"))
        }
    }

    @Test("Redirects to other schemes are refused", arguments: ["ftp://127.0.0.1/secret.png", "file:///etc/passwd"])
    func refusesOtherSchemes(_ location: String) async throws {
        try await withFetchHarness(routes: ["/go": .redirect(status: 302, location: location)]) { harness in
            let error = await harness.fetchError("/go")
            let scheme = String(location.prefix { $0 != ":" })
            #expect(error?.kind == .forbiddenRedirect(scheme: scheme, location: location))
            #expect(error?.description.contains("only http and https redirects are followed") == true)
            #expect(harness.server.requestCount(for: "/go") == 1)
        }
    }

    @Test("A redirect without Location is an error")
    func missingLocation() async throws {
        try await withFetchHarness(routes: ["/go": .response(status: 302, headers: [], body: [])]) { harness in
            let error = await harness.fetchError("/go")
            #expect(error?.kind == .invalidRedirect(location: nil))
        }
    }

    @Test("Configured headers go to the URL's origin only, not to another host after a redirect")
    func headersStayOnOrigin() async throws {
        let other = try await FixtureServer.start(routes: ["/elsewhere.png": .image(png)])
        let configuration = fastConfiguration(headers: [(name: "Authorization", value: "Bearer origin-only")])
        do {
            let routes: [String: FixtureRoute] = [
                "/go": .redirect(status: 302, location: other.url("/elsewhere.png").absoluteString),
            ]
            try await withFetchHarness(routes: routes, configuration: configuration) { harness in
                _ = try downloaded(try await harness.fetch("/go"))
                #expect(harness.server.requests(for: "/go").first?.header("Authorization") == "Bearer origin-only")
                let redirected = try #require(other.requests(for: "/elsewhere.png").first)
                #expect(redirected.header("Authorization") == nil)
                #expect(redirected.header("User-Agent") == "warm-cache/1")
            }
        } catch {
            try? await other.shutdown()
            throw error
        }
        try await other.shutdown()
    }
}
