import Foundation
import Testing
@testable import WarmCacheBuilder

/// Every class of validation error, with its exact `file:line:column: error: message` text.
@Suite struct ManifestValidationTests {
    let fixture: ManifestFixture

    init() throws {
        fixture = try ManifestFixture(files: ["a.png": "png", "b.png": "png", "Images/c.png": "png"])
    }

    @Test func yamlSyntaxErrorHasLineAndColumn() {
        let yaml = """
        version: 1
        output: Build/Images.warmcache
        images:
          - path: a.png
           presets: [thumb]
        """
        #expect(fixture.diagnostics(yaml) == [
            "manifest.yml:5:4: error: YAML syntax error: did not find expected '-' indicator (while parsing a block"
                + " collection, from line 4 column 3)",
        ])
    }

    @Test func duplicateYAMLKey() {
        let yaml = "version: 1\noutput: A.warmcache\nimages: []\noutput: B.warmcache\n"
        #expect(fixture.diagnostics(yaml) == [
            "manifest.yml:4:1: error: key 'output' is written twice in the same mapping; keep one",
            "manifest.yml:2:1: note: first written here",
        ])
    }

    @Test func emptyAndNonMappingManifests() {
        #expect(fixture.diagnostics("# nothing yet\n") == [
            "manifest.yml:1:1: error: the manifest is empty; it needs at least 'version', 'output' and 'images'",
        ])
        #expect(fixture.diagnostics("- a\n- b\n") == [
            "manifest.yml:1:1: error: the manifest must be a mapping (key: value lines), found a list",
        ])
    }

    @Test func missingRequiredKeysAndUnsupportedVersion() {
        #expect(fixture.diagnostics("images: []\n") == [
            "manifest.yml:1:1: error: missing 'version: 1' at the top of the manifest",
            "manifest.yml:1:1: error: missing 'output': the bundle directory to write, relative to the manifest"
                + " (e.g. 'output: Build/Images.warmcache')",
        ])
        #expect(fixture.diagnostics("version: 3\noutput: Out.warmcache\n") == [
            "manifest.yml:1:1: error: missing 'images': the list of sources to bake",
            "manifest.yml:1:10: error: unsupported manifest version 3; this warm-cache reads version 1",
        ])
    }

    @Test func outputMustBeABundleDirectory() {
        let yaml = "version: 1\noutput: Build/Images\nimages: []\n"
        #expect(fixture.diagnostics(yaml) == [
            "manifest.yml:2:9: error: 'output' must name a '.warmcache' bundle directory, found 'Build/Images'"
                + " (e.g. 'Images.warmcache')",
        ])
    }

    @Test func unknownKeysSuggestTheClosestKnownKey() {
        let yaml = minimalManifest(extra: "defualts: {}\nfetch: { concurency: 4 }", images: """
          - path: a.png
            presetz: [thumb]
        """)
        #expect(fixture.diagnostics(yaml) == [
            "manifest.yml:5:1: error: unknown key 'defualts' in the manifest (did you mean 'defaults'?)",
            "manifest.yml:6:10: error: unknown key 'concurency' in 'fetch' (did you mean 'concurrency'?)",
            "manifest.yml:9:5: error: unknown key 'presetz' in an image entry (did you mean 'presets'?)",
        ])
    }

    @Test func misplacedKeysExplainWhereTheyBelong() {
        let yaml = minimalManifest(presets: "  thumb: { width: 64, placeholder: thumbhash }",
                                   extra: "formats: [webp]\ndefaults: { height: 10 }", images: """
          - path: a.png
            presets: [thumb]
            timeout: 3s
        """)
        #expect(fixture.diagnostics(yaml) == [
            "manifest.yml:4:23: error: 'placeholder' is not allowed in preset 'thumb': placeholders are made once per"
                + " source; set 'placeholder' in 'defaults' or on an image entry",
            "manifest.yml:5:1: error: 'formats' is not allowed in the manifest: it is a variant setting; put it"
                + " under 'defaults' (or in a preset or image entry)",
            "manifest.yml:6:13: error: 'height' is not allowed in 'defaults': a default size would apply to every"
                + " preset; give sizes in presets or image entries",
            "manifest.yml:10:5: error: 'timeout' is not allowed in an image entry: download settings apply to the"
                + " whole manifest; put it under 'fetch'",
        ])
    }

    @Test func wrongTypes() {
        let yaml = minimalManifest(presets: "  thumb: { width: \"64\", height: 6.5, upscale: maybe, scales: {} }\n"
                                   + "  empty: { width: 1, scales: [], formats: [] }",
                                   images: "  - path: a.png\n    presets: [thumb, empty]")
        #expect(fixture.diagnostics(yaml) == [
            "manifest.yml:4:19: error: 'width' must be a whole number, found the quoted string '64' (remove the quotes)",
            "manifest.yml:4:33: error: 'height' must be a whole number, found the number 6.5",
            "manifest.yml:4:47: error: 'upscale' must be true or false, found the string 'maybe'",
            "manifest.yml:4:62: error: 'scales' must be a list, found a mapping",
            "manifest.yml:5:30: error: 'scales' is empty; list at least one scale, such as [1, 2, 3]",
            "manifest.yml:5:43: error: 'formats' is empty; list at least one format",
        ])
    }

    @Test func unknownPresetSuggestsTheClosestName() {
        let yaml = minimalManifest(images: "  - path: a.png\n    presets: [thum, zzz]")
        #expect(fixture.diagnostics(yaml) == [
            "manifest.yml:8:15: error: unknown preset 'thum' (did you mean 'thumb'?)",
            "manifest.yml:8:21: error: unknown preset 'zzz'; defined presets: thumb",
        ])
    }

    @Test func unknownDefaultPresetsAreReportedEvenWhenNoEntryUsesThem() {
        let yaml = minimalManifest(extra: "defaults: { presets: [thumb, crad] }",
                                   images: "  - path: a.png\n    presets: [thumb]")
        #expect(fixture.diagnostics(yaml) == [
            "manifest.yml:5:30: error: unknown preset 'crad'; defined presets: thumb",
        ])
    }

    @Test func hostsListedTwice() {
        let yaml = minimalManifest(extra: """
        fetch:
          hosts:
            cdn.example.com: { headers: { A: b } }
            CDN.example.com: { headers: { A: c } }
        """, images: "  - path: a.png\n    presets: [thumb]")
        #expect(fixture.diagnostics(yaml) == [
            "manifest.yml:8:5: error: host 'CDN.example.com' is listed twice in 'fetch.hosts' (host names ignore case)",
        ])
    }

    @Test func badURLs() {
        let yaml = minimalManifest(images: """
          - urls:
              - ftp://cdn.example.com/a.jpg
              - cdn.example.com/b.jpg
              - //cdn.example.com/c.jpg
              - file:///tmp/d.jpg
              - https://cdn.example.com/my photo.jpg
              - https://:80/e.jpg
              - https://cdn.example.com:99999/f.jpg
              - https://cdn.example.com:8o/g.jpg
            presets: [thumb]
        """)
        #expect(fixture.diagnostics(yaml) == [
            "manifest.yml:8:9: error: unsupported URL scheme 'ftp' in 'ftp://cdn.example.com/a.jpg': only http and"
                + " https URLs can be fetched",
            "manifest.yml:9:9: error: 'cdn.example.com/b.jpg' is not a URL (URLs start with https:// or http://);"
                + " use 'path:' for a local file",
            "manifest.yml:10:9: error: '//cdn.example.com/c.jpg' has no scheme; write 'https://cdn.example.com/c.jpg'",
            "manifest.yml:11:9: error: file URLs are not fetched: 'file:///tmp/d.jpg'; use 'path:' for a local file",
            "manifest.yml:12:9: error: URL 'https://cdn.example.com/my photo.jpg' contains a space, which must be"
                + " percent-encoded as %20",
            "manifest.yml:13:9: error: URL 'https://:80/e.jpg' has no host; write it as https://host/path",
            "manifest.yml:14:9: error: URL 'https://cdn.example.com:99999/f.jpg' has the port 99999, out of the range"
                + " 1–65535; correct the port, or leave it out for the scheme's default",
            "manifest.yml:15:9: error: URL 'https://cdn.example.com:8o/g.jpg' has the port '8o', which is not a number;"
                + " write a port from 1 to 65535 after the host, or none",
        ])
    }

    @Test func aMisspeltSizeKeyIsReportedAloneWithASuggestion() {
        let yaml = minimalManifest(presets: "  thumb: { widht: 64, height: 64, fit: cover }",
                                   images: "  - url: https://cdn.example.com/a.jpg\n    presets: [thumb]")
        // Not also "fit 'cover' … needs both 'width' and 'height'": that follows from the typo.
        #expect(fixture.diagnostics(yaml) == [
            "manifest.yml:4:12: error: unknown key 'widht' in preset 'thumb' (did you mean 'width'?)",
        ])
    }

    @Test func missingLocalFilesSuggestSiblings() {
        let yaml = minimalManifest(images: """
          - path: Images/d.png
            presets: [thumb]
          - path: Images
            presets: [thumb]
        """)
        #expect(fixture.diagnostics(yaml) == [
            "manifest.yml:7:11: error: file not found: 'Images/d.png' (did you mean 'c.png'?) (looked for"
                + " Images/d.png)",
            "manifest.yml:9:11: error: 'Images' is a directory; list image files one by one",
        ])
    }

    @Test func impossibleSizes() {
        let yaml = minimalManifest(presets: """
          zero: { width: 0 }
          huge: { width: 6000, scales: [1, 3] }
          cover: { width: 100, fit: cover }
          fill: { fit: fill }
        """, images: "  - path: a.png\n    presets: [zero, huge, cover, fill]")
        #expect(fixture.diagnostics(yaml) == [
            "manifest.yml:4:18: error: 'width' must be between 1 and 16383, found 0",
            "manifest.yml:5:18: error: preset 'huge': width 6000 at scale 3 is 18000 pixels, more than the 16383 a"
                + " variant may have",
            "manifest.yml:6:29: error: preset 'cover': fit 'cover' fills an exact box, so it needs both 'width' and"
                + " 'height' (only 'width' is set); use 'fit: inside' to bound one side",
            "manifest.yml:7:16: error: preset 'fill': fit 'fill' fills an exact box, so it needs both 'width' and"
                + " 'height' (neither is set); use 'fit: inside' to bound one side",
        ])
    }

    @Test func unknownFormatsFitsGravitiesAndProcessors() {
        let yaml = minimalManifest(presets: """
          a: { width: 10, formats: [webp, jpg2], fit: covr, gravity: middle }
          b: { width: 10, processors: [{ rond: 4 }, sepia, { round: 4, blur: 1 }, round] }
        """, images: "  - path: a.png\n    presets: [a, b]")
        #expect(fixture.diagnostics(yaml) == [
            "manifest.yml:4:35: error: unknown format 'jpg2' (did you mean 'jpg'?); use smallest, auto, jpeg, png,"
                + " webp, avif, heic, jxl or gif",
            "manifest.yml:4:47: error: unknown fit 'covr' (did you mean 'cover'?); use inside, cover, fill, contain",
            "manifest.yml:4:62: error: unknown gravity 'middle'; use centre, north, south, east, west, northeast,"
                + " northwest, southeast, southwest, attention or entropy",
            "manifest.yml:5:34: error: unknown processor 'rond' (did you mean 'round'?); use round, blur, grayscale"
                + " or flatten",
            "manifest.yml:5:45: error: unknown processor 'sepia'; use round, blur, grayscale or flatten",
            "manifest.yml:5:52: error: each processor is a mapping with exactly one key, such as '{ round: 24 }';"
                + " found 2 keys (write one list item per processor)",
            "manifest.yml:5:75: error: processor 'round' needs a value: write it as '{ round: ... }'",
        ])
    }

    @Test func qualityOutOfRange() {
        let yaml = minimalManifest(extra: "defaults: { quality: { jpeg: 0, webp: 101, avif: 60, gif2: 3 } }",
                                   images: "  - path: a.png\n    presets: [thumb]\n    quality: 200")
        #expect(fixture.diagnostics(yaml) == [
            "manifest.yml:5:30: error: quality for jpeg must be between 1 and 100, found 0",
            "manifest.yml:5:39: error: quality for webp must be between 1 and 100, found 101",
            "manifest.yml:5:54: error: unknown format 'gif2' in 'quality' (did you mean 'gif'?)",
            "manifest.yml:9:14: error: 'quality' must be between 1 and 100, found 200",
        ])
    }

    @Test func roundedCornersWithJPEGNeedAlphaOrFlatten() {
        let yaml = minimalManifest(presets: """
          avatar: { width: 48, height: 48, fit: cover, processors: [{ round: 24 }], formats: [png, jpeg] }
          flat: { width: 48, processors: [{ round: 24 }, { flatten: "#ffffff" }], formats: [jpeg] }
          pad: { width: 48, height: 48, fit: contain, formats: [jpeg] }
          circle: { width: 48, height: 48, processors: [{ round: 24 }] }
        """, images: """
          - path: a.png
            presets: [avatar, flat, pad]
          - path: b.png
            presets: [circle]
            formats: [jpeg]
        """)
        let advice = "rounded corners need transparency, which jpeg cannot store: use png, webp or avif (or auto)"
            + " instead of jpeg, or add '{ flatten: \"#ffffff\" }' after 'round' to fill the corners"
        #expect(fixture.diagnostics(yaml) == [
            "manifest.yml:4:86: error: preset 'avatar': " + advice,
            "manifest.yml:6:56: error: preset 'pad': fit 'contain' pads with a transparent background (#00000000),"
                + " which jpeg cannot store: set an opaque 'background' such as \"#ffffff\", or use png, webp or avif"
                + " (or auto) instead of jpeg",
            "manifest.yml:14:14: error: preset 'circle' with this entry's settings: " + advice,
        ])
    }

    @Test func unquotedHashColourIsExplained() {
        let yaml = minimalManifest(presets: "  pad:\n    width: 8\n    height: 8\n    fit: contain\n    background: #fff",
                                   images: "  - path: a.png\n    presets: [pad]")
        #expect(fixture.diagnostics(yaml) == [
            "manifest.yml:8:16: error: 'background' needs a colour; an unquoted '#' starts a YAML comment, so quote"
                + " it: \"#ffffff\"",
        ])
    }

    @Test func effortOutOfRangeForAFormat() {
        let yaml = minimalManifest(presets: "  small: { width: 10, formats: [webp, avif], effort: 8 }",
                                   images: "  - path: a.png\n    presets: [small]")
        #expect(fixture.diagnostics(yaml) == [
            "manifest.yml:4:54: error: preset 'small': effort 8 is out of range for webp (0–6)",
        ])
    }

    @Test func sourceKeyRules() {
        let yaml = minimalManifest(images: """
          - presets: [thumb]
          - url: https://cdn.example.com/a.jpg
            path: a.png
            presets: [thumb]
          - urls: [https://cdn.example.com/b.jpg]
            key: asset://b
            presets: [thumb]
          - path: a.png
        """)
        #expect(fixture.diagnostics(yaml) == [
            "manifest.yml:7:5: error: image entry has no source: add one of 'url', 'urls', 'urls_from' or 'path'",
            "manifest.yml:9:5: error: image entry has both 'url' and 'path'; give one source key per entry",
            "manifest.yml:12:10: error: 'key' names a single source, but this entry lists several: use 'url' or"
                + " 'path' with 'key', one entry per keyed source",
            "manifest.yml:14:5: error: image entry has no variants: list 'presets' (or set 'defaults.presets'), or"
                + " give the entry its own 'width'/'height'",
        ])
    }

    @Test func entryBoxCannotBeCombinedWithPresets() {
        let yaml = minimalManifest(images: "  - path: a.png\n    presets: [thumb]\n    width: 10")
        #expect(fixture.diagnostics(yaml) == [
            "manifest.yml:8:14: error: an image entry with 'presets' cannot set 'width' or 'height' (they would resize"
                + " every preset); define a preset for this size, or remove 'presets' so the entry describes its own"
                + " variant",
        ])
    }

    @Test func everyProblemIsReportedAtOnceInFileOrder() {
        let yaml = """
        version: 1
        output: Build/Images.warmcache
        presets:
          thumb: { width: 64, height: 64, fit: cover }
        fetch:
          timeout: soon
        images:
          - url: https://cdn.example.com/1.jpg
            presets: [thum]
          - path: missing.png
            presets: [thumb]
            quality: { webp: 0 }
        """
        #expect(fixture.diagnostics(yaml) == [
            "manifest.yml:6:12: error: 'fetch.timeout' must be a duration such as 30s, 500ms, 10m, 12h or 7d (a bare"
                + " number is seconds), found 'soon'",
            "manifest.yml:9:15: error: unknown preset 'thum' (did you mean 'thumb'?)",
            "manifest.yml:10:11: error: file not found: 'missing.png' (looked for missing.png)",
            "manifest.yml:12:22: error: quality for webp must be between 1 and 100, found 0",
        ])
    }

    @Test func errorDescriptionPrintsOneLinePerDiagnostic() throws {
        let yaml = minimalManifest(images: "  - path: a.png\n    presets: [thum]")
        do {
            _ = try fixture.load(yaml)
            Issue.record("expected an error")
        } catch {
            #expect(error.errors.count == 1)
            #expect(fixture.relative(error.description)
                    == "manifest.yml:8:15: error: unknown preset 'thum' (did you mean 'thumb'?)")
            #expect(error.diagnostics.first?.line == 8)
            #expect(error.diagnostics.first?.column == 15)
            #expect(error.diagnostics.first?.file == fixture.manifestURL.path)
        }
    }

    @Test func missingManifestFile() {
        let url = fixture.directory.appendingPathComponent("nope.yml")
        #expect(throws: ManifestError.self) { try ManifestLoader().load(contentsOf: url) }
        do {
            _ = try ManifestLoader().load(contentsOf: url)
        } catch {
            #expect(fixture.relative(error.description) == "nope.yml:1:1: error: cannot read the manifest: no such file")
        }
    }
}
