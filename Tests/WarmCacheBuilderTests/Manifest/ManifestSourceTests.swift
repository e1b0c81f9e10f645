import Foundation
import Testing
import WarmCache
@testable import WarmCacheBuilder

/// `url`, `urls`, `urls_from`, `path` and `key`: identifiers, locations, and duplicates.
@Suite struct ManifestSourceTests {
    let fixture: ManifestFixture

    init() throws {
        fixture = try ManifestFixture(files: [
            "Images/a.png": "png",
            "lists/urls.txt": """
            # Product photos, one per line.
            https://cdn.example.com/products/10.jpg

               https://cdn.example.com/products/11.jpg   # indented, with a trailing comment
            https://cdn.example.com/products/12.jpg#zoom
            \r
            """,
            "lists/bad.txt": "https://cdn.example.com/ok.jpg\n  ftp://cdn.example.com/x.jpg\nphoto 2.jpg\n",
            "lists/empty.txt": "# nothing yet\n\n",
            "lists/windows.txt": "# CRLF line ends\r\nhttps://cdn.example.com/w1.jpg\r\n\r\n  https://cdn.example.com/w2.jpg\r\n",
            "lists/old-mac.txt": "https://cdn.example.com/m1.jpg\rhttps://cdn.example.com/m2.jpg\u{0C}\r\n https://cdn.example.com/m3.jpg",
        ])
    }

    @Test func urlsAreNormalisedIntoIdentifiers() throws {
        let plan = try fixture.load(minimalManifest(images: """
          - url: HTTPS://CDN.Example.com:443/a%7e.jpg#top
            presets: [thumb]
          - urls: [http://cdn.example.com:8080/b.jpg?w=1&a=2, https://cdn.example.com]
            presets: [thumb]
        """))
        #expect(plan.sources.map(\.identifier.rawValue) == [
            "http://cdn.example.com:8080/b.jpg?w=1&a=2", "https://cdn.example.com/", "https://cdn.example.com/a~.jpg",
        ])
        #expect(plan.sources.map(\.location) == [
            .remote(URL(string: "http://cdn.example.com:8080/b.jpg?w=1&a=2")!),
            .remote(URL(string: "https://cdn.example.com/")!),
            .remote(URL(string: "https://cdn.example.com/a~.jpg")!),
        ])
        #expect(plan.sources.map(\.manifestLocation.description).map(fixture.relative) == [
            "manifest.yml:9:12", "manifest.yml:9:55", "manifest.yml:7:10",
        ])
    }

    @Test func pathSourcesUseThePathAsWrittenOrTheirKey() throws {
        let plan = try fixture.load(minimalManifest(images: """
          - path: Images/a.png
            presets: [thumb]
          - path: ./Images/../Images/a.png
            key: asset://a
            presets: [thumb]
          - url: https://cdn.example.com/signed.jpg?sig=abc
            key: remote://signed
            presets: [thumb]
        """))
        let file = fixture.directory.appendingPathComponent("Images/a.png").standardizedFileURL
        #expect(plan.sources.map(\.identifier) == [
            SourceIdentifier(verbatim: "Images/a.png"), SourceIdentifier(verbatim: "asset://a"),
            SourceIdentifier(verbatim: "remote://signed"),
        ])
        #expect(plan.sources.map(\.location) == [
            .file(file), .file(file), .remote(URL(string: "https://cdn.example.com/signed.jpg?sig=abc")!),
        ])
        #expect(plan.summary.localSourceCount == 2)
        #expect(plan.summary.remoteSourceCount == 1)
    }

    @Test func urlsFromSkipsCommentsAndBlankLines() throws {
        let plan = try fixture.load(minimalManifest(images: "  - urls_from: lists/urls.txt\n    presets: [thumb]"))
        #expect(plan.sources.map(\.identifier.rawValue) == [
            "https://cdn.example.com/products/10.jpg", "https://cdn.example.com/products/11.jpg",
            "https://cdn.example.com/products/12.jpg",
        ])
        #expect(plan.sources.map(\.manifestLocation.description).map(fixture.relative) == [
            "lists/urls.txt:2:1", "lists/urls.txt:4:4", "lists/urls.txt:5:1",
        ])
        #expect(plan.sources.allSatisfy { $0.variants.count == 1 })
    }

    @Test func urlsFromAcceptsWindowsLineEnds() throws {
        let plan = try fixture.load(minimalManifest(images: "  - urls_from: lists/windows.txt\n    presets: [thumb]"))
        #expect(plan.sources.map(\.identifier.rawValue) == [
            "https://cdn.example.com/w1.jpg", "https://cdn.example.com/w2.jpg",
        ])
        #expect(plan.sources.map(\.manifestLocation.description).map(fixture.relative) == [
            "lists/windows.txt:2:1", "lists/windows.txt:4:3",
        ])
    }

    /// A carriage return alone ends a line too, as do a vertical tab and a form feed.
    @Test func urlsFromAcceptsCarriageReturnsAndFormFeedsAsLineEnds() throws {
        let plan = try fixture.load(minimalManifest(images: "  - urls_from: lists/old-mac.txt\n    presets: [thumb]"))
        #expect(plan.sources.map(\.identifier.rawValue) == [
            "https://cdn.example.com/m1.jpg", "https://cdn.example.com/m2.jpg", "https://cdn.example.com/m3.jpg",
        ])
        #expect(plan.sources.map(\.manifestLocation.description).map(fixture.relative) == [
            "lists/old-mac.txt:1:1", "lists/old-mac.txt:2:1", "lists/old-mac.txt:4:2",
        ])
    }

    @Test func urlsFromReportsBadLinesInThatFileAndMissingFiles() {
        let yaml = minimalManifest(images: """
          - urls_from: lists/bad.txt
            presets: [thumb]
          - urls_from: lists/missing.txt
            presets: [thumb]
        """)
        #expect(fixture.diagnostics(yaml) == [
            "lists/bad.txt:2:3: error: unsupported URL scheme 'ftp' in 'ftp://cdn.example.com/x.jpg': only http and"
                + " https URLs can be fetched",
            "lists/bad.txt:3:1: error: 'photo 2.jpg' is not a URL (URLs start with https:// or http://); list local"
                + " files as 'path:' entries in the manifest",
            "manifest.yml:9:16: error: file not found: 'lists/missing.txt' (looked for lists/missing.txt)",
        ])
    }

    @Test func emptyURLListIsAWarning() throws {
        let warnings = try fixture.warnings(minimalManifest(images: "  - urls_from: lists/empty.txt\n    presets: [thumb]"))
        #expect(warnings == ["manifest.yml:7:16: warning: 'lists/empty.txt' lists no URLs"])
    }

    @Test func theSameImageListedTwiceIsOneSourceWithAllItsVariants() throws {
        let presets = "  thumb: { width: 64, height: 64, fit: cover }\n  card: { width: 320 }"
        let yaml = minimalManifest(presets: presets, images: """
          - url: https://cdn.example.com/products/10.jpg
            presets: [thumb]
          - urls:
              - https://cdn.example.com/b.jpg
              - HTTPS://cdn.example.com:443/b.jpg
            presets: [thumb]
          - urls_from: lists/urls.txt
            presets: [card]
        """)
        let plan = try fixture.load(yaml)
        let ids = plan.sources.map(\.identifier.rawValue)
        #expect(ids.filter { $0 == "https://cdn.example.com/b.jpg" }.count == 1)
        let merged = try #require(plan.sources.first { $0.identifier.rawValue == "https://cdn.example.com/products/10.jpg" })
        #expect(Set(merged.variants.map(\.preset)) == ["thumb", "card"])
    }

    @Test func twoImagesWithOneIdentifierAreAnError() {
        let yaml = minimalManifest(images: """
          - path: Images/a.png
            key: asset://a
            presets: [thumb]
          - url: https://cdn.example.com/c.jpg
            key: asset://a
            presets: [thumb]
        """)
        #expect(fixture.diagnostics(yaml) == [
            "manifest.yml:10:10: error: duplicate source 'asset://a': two different images cannot share one identifier"
                + " (two entries use the same 'key'; give each its own)",
            "manifest.yml:7:11: note: first listed here",
        ])
    }

    @Test func stripComment() {
        #expect(PlanSourceResolver.stripComment("https://a.com/x.jpg#frag") == "https://a.com/x.jpg#frag")
        #expect(PlanSourceResolver.stripComment("https://a.com/x.jpg # note") == "https://a.com/x.jpg ")
        #expect(PlanSourceResolver.stripComment("# only a comment") == "")
        #expect(PlanSourceResolver.stripComment("\thttps://a.com/x.jpg\t#tab") == "\thttps://a.com/x.jpg\t")
    }
}
