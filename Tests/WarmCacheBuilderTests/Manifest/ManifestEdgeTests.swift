import Foundation
import Testing
@testable import WarmCacheBuilder

/// Edges of reading a manifest: repeated keys, bytes that are not UTF-8, one file under two
/// spellings, and proxy settings.
@Suite struct ManifestEdgeTests {
    let fixture: ManifestFixture

    init() throws {
        fixture = try ManifestFixture(files: ["imgs/a.png": "not really a png"])
    }

    @Test func aRepeatedKeyIsReportedWhereItIsRepeatedAndHidesNothingElse() {
        let yaml = """
            version: 1
            output: A.warmcache
            presets:
              thumb: { width: 64, height: 64, fit: cover }
            images:
              - url: https://cdn.example.com/a.jpg
                presets: [thum]
            output: B.warmcache
            """
        #expect(fixture.diagnostics(yaml) == [
            "manifest.yml:7:15: error: unknown preset 'thum' (did you mean 'thumb'?)",
            "manifest.yml:8:1: error: key 'output' is written twice in the same mapping; keep one",
            "manifest.yml:2:1: note: first written here",
        ])
    }

    @Test func aRepeatedKeyInsideAnEntryIsFoundToo() {
        let yaml = minimalManifest(images: """
              - url: https://cdn.example.com/a.jpg
                presets: [thumb]
                presets: [thumb]
            """)
        #expect(fixture.diagnostics(yaml) == [
            "manifest.yml:9:5: error: key 'presets' is written twice in the same mapping; keep one",
            "manifest.yml:8:5: note: first written here",
        ])
    }

    @Test func aByteThatIsNotUTF8IsLocated() throws {
        var bytes = Array("version: 1\noutput: A.warmcache\n# caf".utf8)
        bytes.append(0xE9)  // Latin-1 'é'
        bytes += Array("\nimages: []\n".utf8)
        try Data(bytes).write(to: fixture.manifestURL)
        do {
            _ = try ManifestLoader(environment: [:]).load(contentsOf: fixture.manifestURL)
            Issue.record("a non-UTF-8 manifest loaded")
        } catch {
            let diagnostic = try #require(error.diagnostics.first)
            #expect(diagnostic.line == 3 && diagnostic.column == 6, "\(diagnostic)")
            #expect(diagnostic.message.contains("not UTF-8"))
        }
    }

    @Test func oneFileUnderTwoSpellingsIsAWarning() throws {
        let warnings = try fixture.warnings(minimalManifest(images: """
              - path: ./imgs/a.png
                presets: [thumb]
              - path: imgs/a.png
                presets: [thumb]
            """))
        #expect(warnings.first?.hasPrefix("manifest.yml:9:11: warning: 'imgs/a.png' is the same file as './imgs/a.png'")
                == true, "\(warnings)")
    }

    @Test func proxiesComeFromTheEnvironmentUnlessTheManifestSetsOne() throws {
        let plain = minimalManifest(images: "  - url: https://cdn.example.com/a.jpg\n    presets: [thumb]")
        let environment = ["HTTPS_PROXY": "http://user:p%40ss@proxy.corp:3128", "no_proxy": ".internal, localhost:8080"]
        let proxies = try fixture.load(plain, environment: environment).fetch.proxies
        let server = try #require(proxies.https)
        #expect(server.host == "proxy.corp" && server.port == 3128)
        #expect(server.password?.unredactedValue == "p@ss")
        #expect(proxies.http == nil)
        #expect("\(proxies)" == "https via <redacted>@proxy.corp:3128; direct to internal,localhost:8080")
        #expect(proxies.proxy(for: URL(string: "https://cdn.example.com/a.jpg")!) == server)
        #expect(proxies.proxy(for: URL(string: "https://img.internal/a.jpg")!) == nil)
        #expect(proxies.proxy(for: URL(string: "https://localhost:8080/a.jpg")!) == nil)
        #expect(proxies.proxy(for: URL(string: "https://localhost:8443/a.jpg")!) == server)
        #expect(proxies.proxy(for: URL(string: "http://cdn.example.com/a.jpg")!) == nil)

        let none = minimalManifest(extra: "fetch:\n  proxy: none", images: "  - url: https://cdn.example.com/a.jpg\n    presets: [thumb]")
        #expect(try fixture.load(none, environment: environment).fetch.proxies.isEmpty)

        let bad = ["HTTPS_PROXY": "socks5://user:hunter2@proxy:1080"]
        let diagnostics = fixture.diagnostics(plain, environment: bad)
        #expect(diagnostics.count == 1 && diagnostics[0].contains("HTTPS_PROXY is not a usable proxy address"),
                "\(diagnostics)")
        #expect(!diagnostics[0].contains("hunter2"))
    }
}
