import Foundation
import Testing
@testable import WarmCacheBuilder

/// `${NAME}` substitution, unset variables, and keeping secrets out of every printed form.
@Suite struct ManifestEnvironmentTests {
    let fixture: ManifestFixture

    init() throws {
        fixture = try ManifestFixture(files: ["a.png": "png"])
    }

    private func manifest(fetch: String, output: String = "Build/Images.warmcache") -> String {
        """
        version: 1
        output: \(output)
        fetch:
        \(fetch)
        images:
          - path: a.png
            width: 10
        """
    }

    @Test func substitutionRules() {
        let environment = ManifestEnvironment(variables: ["TOKEN": "s3cret", "EMPTY": ""])
        #expect(environment.substitute("Bearer ${TOKEN}") == .success("Bearer s3cret"))
        #expect(environment.substitute("${MISSING:-fallback}/${TOKEN:-x}") == .success("fallback/s3cret"))
        #expect(environment.substitute("${EMPTY:-used when empty}") == .success("used when empty"))
        #expect(environment.substitute("[${EMPTY}]") == .success("[]"))
        #expect(environment.substitute("$$${TOKEN} costs $5") == .success("$s3cret costs $5"))
        #expect(environment.substitute("$${TOKEN}") == .success("${TOKEN}"))
        #expect(environment.substitute("a ${NOPE} b ${9X} ${OPEN") == .failure(.init(problems: [
            .init(kind: .unset(name: "NOPE"), offset: 2),
            .init(kind: .malformed(reason: "invalid variable name '9X' (names use letters, digits and '_', and do"
                                   + " not start with a digit)"), offset: 12),
            .init(kind: .malformed(reason: "unclosed '${' (add the closing '}')"), offset: 18),
        ])))
    }

    @Test func headersAndOutputAreSubstituted() throws {
        let yaml = manifest(fetch: """
          user_agent: "app/${VERSION}"
          headers:
            Authorization: "Bearer ${CDN_TOKEN}"
            X-Region: ${REGION:-eu}
        """, output: "${OUT_DIR:-Build}/Images.warmcache")
        let plan = try fixture.load(yaml, environment: ["CDN_TOKEN": "tok-123", "VERSION": "2.1"])
        #expect(plan.fetch.headers.map(\.name) == ["Authorization", "X-Region"])
        #expect(plan.fetch.headers.map(\.value.unredactedValue) == ["Bearer tok-123", "eu"])
        #expect(plan.fetch.userAgent == "app/2.1")
        #expect(plan.output == fixture.directory.appendingPathComponent("Build/Images.warmcache").standardizedFileURL)
    }

    @Test func unsetVariablesAreErrorsAtTheReference() {
        let yaml = manifest(fetch: """
          headers:
            Authorization: "Bearer ${CDN_TOKEN}"
            X-Both: 'a ${ONE} b ${TWO}'
            X-Plain: ${THREE}
        """)
        #expect(fixture.diagnostics(yaml, environment: ["TWO": "2"]) == [
            "manifest.yml:5:28: error: environment variable 'CDN_TOKEN' is not set (used in header 'Authorization');"
                + " set it, or give a default with '${CDN_TOKEN:-default}'",
            "manifest.yml:6:16: error: environment variable 'ONE' is not set (used in header 'X-Both'); set it, or"
                + " give a default with '${ONE:-default}'",
            "manifest.yml:7:14: error: environment variable 'THREE' is not set (used in header 'X-Plain'); set it,"
                + " or give a default with '${THREE:-default}'",
        ])
    }

    @Test func referencesAreLocatedInCRLFManifests() {
        let yaml = manifest(fetch: "  headers:\n    X-Key: \"k=${KEY}\"").replacingOccurrences(of: "\n", with: "\r\n")
        #expect(fixture.diagnostics(yaml) == [
            "manifest.yml:5:15: error: environment variable 'KEY' is not set (used in header 'X-Key'); set it, or"
                + " give a default with '${KEY:-default}'",
        ])
    }

    @Test func malformedReferencesAndBadHeaders() {
        let yaml = manifest(fetch: """
          headers:
            X-A: "${}"
            X-B: "${OPEN"
            "Bad Name": x
            Host: example.com
            x-a: again
            X-Break: "a\\r\\nInjected: yes"
          hosts:
            "https://cdn.example.com": { headers: {} }
        """)
        #expect(fixture.diagnostics(yaml, environment: ["CDN_TOKEN": "tok"]) == [
            "manifest.yml:5:11: error: header 'X-A': invalid variable name '' (names use letters, digits and '_', and"
                + " do not start with a digit); write '$$' for a literal '$'",
            "manifest.yml:6:11: error: header 'X-B': unclosed '${' (add the closing '}'); write '$$' for a literal '$'",
            "manifest.yml:7:5: error: 'Bad Name' is not a valid HTTP header name",
            "manifest.yml:8:5: error: header 'Host' cannot be set here: it is derived from each URL",
            "manifest.yml:9:5: error: header 'x-a' is set twice (header names ignore case)",
            "manifest.yml:5:5: note: first set here",
            "manifest.yml:10:14: error: header 'X-Break' contains a line break or control character",
            "manifest.yml:12:5: error: 'fetch.hosts' keys are host names such as 'cdn.example.com' (no scheme, port"
                + " or path), found 'https://cdn.example.com'",
        ])
    }

    @Test func urlsRefuseSubstitution() {
        let yaml = minimalManifest(images: "  - url: https://cdn.example.com/${TOKEN}/a.jpg\n    presets: [thumb]")
        #expect(fixture.diagnostics(yaml, environment: ["TOKEN": "x"]) == [
            "manifest.yml:7:10: error: environment variables are not substituted in URLs (a URL is the image's"
                + " identity in the bundle); send credentials with 'fetch.headers' or 'fetch.hosts'",
        ])
    }

    @Test func secretsNeverAppearInDescriptionsDumpsOrJSON() throws {
        let secret = "tok-SECRET-123"
        let yaml = manifest(fetch: """
          headers: { Authorization: "Bearer ${CDN_TOKEN}" }
          hosts:
            cdn.example.com:
              headers: { X-Key: "${CDN_TOKEN}" }
        """)
        let plan = try fixture.load(yaml, environment: ["CDN_TOKEN": secret])
        #expect(plan.fetch.headers(forHost: "cdn.example.com").map(\.value.unredactedValue) == ["Bearer " + secret, secret])

        var dumped = ""
        dump(plan, to: &dumped)
        let encoder = JSONEncoder()
        let json = String(decoding: try encoder.encode(plan), as: UTF8.self)
        let texts = [String(describing: plan), String(reflecting: plan), "\(plan.fetch)", dumped, json,
                     plan.fetch.headers.description, String(reflecting: plan.fetch.headers[0].value)]
        for text in texts {
            #expect(!text.contains(secret))
            #expect(text.contains("<redacted>"))
        }
        #expect(plan.fetch.headers[0].description == "Authorization: <redacted>")
    }

    @Test func errorsNeverEchoSecretValues() {
        let secret = "tok-SECRET-123"
        let yaml = manifest(fetch: "  headers: { X-Key: \"${CDN_TOKEN}\\n\", X-Other: \"${UNSET}\" }")
        let text = fixture.diagnostics(yaml, environment: ["CDN_TOKEN": secret]).joined(separator: "\n")
        #expect(!text.contains(secret))
        #expect(text.contains("header 'X-Key' contains a line break"))
        #expect(text.contains("environment variable 'UNSET' is not set"))
    }
}
