import Foundation
import Testing
import WarmCacheTestSupport

@testable import WarmCacheBuilder

@Suite("Fetch: secrets in headers")
struct FetchSecretsTests {
    static let secret = "Bearer s3cr3t-t0ken"

    @Test("The header reaches the server but never an error message")
    func errorsDoNotLeakHeaders() async throws {
        let configuration = fastConfiguration(retries: 0, headers: [(name: "Authorization", value: Self.secret)])
        let routes: [String: FixtureRoute] = ["/private.png": .status(403), "/page": .html()]
        try await withFetchHarness(routes: routes, configuration: configuration) { harness in
            let forbidden = try #require(await harness.fetchError("/private.png"))
            #expect(harness.server.requests(for: "/private.png").first?.header("Authorization") == Self.secret)
            #expect(forbidden.kind == .httpStatus(403))
            #expect(forbidden.description.contains("credentials"))

            let html = try #require(await harness.fetchError("/page"))
            for error in [forbidden, html] {
                #expect(!error.description.contains("s3cr3t"))
                #expect(!String(reflecting: error).contains("s3cr3t"))
            }
        }
    }

    @Test("An invalid header value fails without quoting it")
    func invalidHeaderValueIsRedacted() async throws {
        let configuration = fastConfiguration(retries: 0, headers: [(name: "X-Token", value: "s3cr3t\r\nInjected: yes")])
        try await withFetchHarness(routes: ["/a.png": .image(FixtureBytes.fakePNG(count: 100))], configuration: configuration) { harness in
            let error = try #require(await harness.fetchError("/a.png"))
            #expect(error.kind == .invalidHeader(name: "X-Token"))
            #expect(!error.description.contains("s3cr3t"))
            #expect(harness.server.requestCount(for: "/a.png") == 0)
        }
    }

    @Test("The settings' description, debug description and mirror redact header values")
    func settingsAreRedacted() {
        let configuration = FetchSettings(headers: [FetchHeader(name: "Authorization", value: SecretString(Self.secret))],
                                          hostHeaders: ["cdn.example.com": [FetchHeader(name: "X-Key", value: SecretString(Self.secret))]])
        #expect(configuration.description.contains("Authorization: <redacted>"))
        #expect(configuration.description.contains("X-Key: <redacted>"))
        var dumped = ""
        dump(configuration, to: &dumped)
        for text in [configuration.description, String(reflecting: configuration), "\(configuration)", dumped] {
            #expect(!text.contains("s3cr3t"))
        }
    }
}
