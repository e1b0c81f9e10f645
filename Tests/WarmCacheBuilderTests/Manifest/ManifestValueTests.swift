import Foundation
import Testing
@testable import WarmCacheBuilder

/// Durations, byte sizes, suggestions, and the `fetch` section's checks.
@Suite struct ManifestValueTests {
    @Test(arguments: [
        ("30s", 30.0), ("500ms", 0.5), ("2m", 120.0), ("1h", 3600.0), ("1m30s", 90.0), ("1m 30s", 90.0),
        ("30", 30.0), ("2.5", 2.5), ("1.5s", 1.5), ("10 s", 10.0), ("250MS", 0.25), ("7d", 604_800.0),
        ("1d12h", 129_600.0),
    ])
    func durations(text: String, seconds: Double) {
        #expect(ManifestDuration.seconds(from: text) == seconds)
    }

    @Test(arguments: ["", "s", "30x", "-5s", "1e3", "soon", "1.2.3s", "30s5", "inf"])
    func invalidDurations(text: String) {
        #expect(ManifestDuration.seconds(from: text) == nil)
    }

    @Test(arguments: [
        ("50MB", 50_000_000), ("512KB", 512_000), ("1GiB", 1_073_741_824), ("1024", 1024), ("2 MiB", 2_097_152),
        ("50mb", 50_000_000), ("1.5MB", 1_500_000), ("10B", 10), ("1_000", 1000), ("1TB", 1_000_000_000_000),
    ])
    func byteSizes(text: String, bytes: Int) {
        #expect(ManifestByteSize.bytes(from: text) == bytes)
    }

    @Test(arguments: ["", "MB", "50M", "50 megabytes", "-1MB", "1e9", "5.5.5KB", "999999999999TB"])
    func invalidByteSizes(text: String) {
        #expect(ManifestByteSize.bytes(from: text) == nil)
    }

    @Test func formatting() {
        #expect(ManifestDuration.format(30) == "30s")
        #expect(ManifestDuration.format(0.5) == "500ms")
    }

    @Test func suggestions() {
        #expect(ManifestSuggestions.closest(to: "presetz", in: ["presets", "placeholder"]) == "presets")
        #expect(ManifestSuggestions.closest(to: "thubm", in: ["thumb", "card"]) == "thumb")
        #expect(ManifestSuggestions.closest(to: "Formats", in: ["formats"]) == "formats")
        #expect(ManifestSuggestions.closest(to: "zzz", in: ["thumb", "card"]) == nil)
        #expect(ManifestSuggestions.editDistance("kitten", "sitting") == 3)
    }

    @Test func fetchSection() throws {
        let fixture = try ManifestFixture(files: ["a.png": "png"])
        let yaml = """
        version: 1
        output: Out.warmcache
        fetch:
          concurrency: 4
          per_host: 2
          timeout: 1m
          connect_timeout: 2m
          retries: 0
          retry_delay: 250ms
          max_bytes: 512KiB
          max_redirects: 0
        images:
          - path: a.png
            width: 10
        """
        let fetch = try fixture.load(yaml).fetch
        #expect(fetch == FetchSettings(concurrency: 4, perHost: 2, connectTimeout: 60, requestTimeout: 60, retries: 0,
                                       retryDelay: 0.25, maxBytes: 524_288, maxRedirects: 0))
    }

    @Test func fetchErrors() throws {
        let fixture = try ManifestFixture(files: ["a.png": "png"])
        let yaml = """
        version: 1
        output: Out.warmcache
        fetch:
          concurrency: 0
          timeout: 0s
          retries: many
          max_bytes: 0
          headers: [Authorization]
        images:
          - path: a.png
            width: 10
        """
        #expect(fixture.diagnostics(yaml) == [
            "manifest.yml:4:16: error: 'fetch.concurrency' must be between 1 and 1024, found 0",
            "manifest.yml:5:12: error: 'fetch.timeout' must be between 1ms and 86400s, found '0s'",
            "manifest.yml:6:12: error: 'fetch.retries' must be a whole number, found the string 'many'",
            "manifest.yml:7:14: error: 'fetch.max_bytes' must be at least 1 byte, found '0'",
            "manifest.yml:8:12: error: 'fetch.headers' must be a mapping (key: value lines), found a list",
        ])
    }

    @Test func hostHeadersReplaceGlobalOnesOfTheSameName() {
        let settings = FetchSettings(headers: [
            FetchHeader(name: "Accept", value: SecretString("image/*")),
            FetchHeader(name: "X-Key", value: SecretString("global")),
        ], hostHeaders: ["cdn.example.com": [FetchHeader(name: "x-key", value: SecretString("cdn"))]])
        #expect(settings.headers(forHost: "other.example.com").map(\.value.unredactedValue) == ["image/*", "global"])
        #expect(settings.headers(forHost: "CDN.example.com").map(\.value.unredactedValue) == ["image/*", "cdn"])
    }
}
