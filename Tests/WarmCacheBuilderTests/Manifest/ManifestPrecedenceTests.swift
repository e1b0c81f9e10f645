import Foundation
import Testing
import WarmCache
import WarmCacheImaging
@testable import WarmCacheBuilder

/// Built-in defaults < `defaults` < preset < image entry, and how each key merges.
@Suite struct ManifestPrecedenceTests {
    let fixture: ManifestFixture

    init() throws {
        fixture = try ManifestFixture(files: ["a.png": "png", "b.png": "png", "c.png": "png"])
    }

    private func variants(_ yaml: String, source: String = "a.png") throws -> [PlannedVariant] {
        let plan = try fixture.load(yaml)
        return try #require(plan.sources.first { $0.identifier.rawValue == source }).variants
    }

    @Test func builtInDefaults() throws {
        let plan = try fixture.load("version: 1\noutput: Out.warmcache\nimages:\n  - path: a.png\n    width: 100\n")
        let source = try #require(plan.sources.first)
        #expect(source.placeholders == .averageColor)
        #expect(source.variants == [PlannedVariant(preset: "(entry)", request: VariantRequest(
            width: 100, height: nil, scale: 1, fit: .inside, allowUpscale: false, format: .auto(), quality: [:],
            options: .default, processors: []))])
        #expect(plan.fetch == FetchSettings())
    }

    @Test func entryOverPresetOverDefaults() throws {
        let yaml = """
        version: 1
        output: Out.warmcache
        defaults:
          formats: [webp, jpeg]
          scales: [1, 2]
          fit: cover
          gravity: north
          quality: { jpeg: 82, webp: 80 }
          progressive: true
          effort: 3
          placeholder: blurhash
        presets:
          tile: { width: 100, height: 100, scales: [3], quality: { webp: 75 }, effort: 5, processors: [grayscale] }
        images:
          - path: a.png
            presets: [tile]
            formats: [jpeg]
            quality: { jpeg: 60 }
            progressive: false
            processors: [{ blur: 1 }]
            placeholder: [thumbhash, blurhash]
          - path: b.png
            presets: [tile]
        """
        let plan = try fixture.load(yaml)
        let a = try #require(plan.sources.first { $0.identifier.rawValue == "a.png" })
        #expect(a.placeholders == [.averageColor, .thumbHash, .blurHash])
        #expect(a.variants.map(\.request) == [VariantRequest(
            width: 100, height: 100, scale: 3, fit: .cover(.north), format: .fixed(.jpeg), quality: [.jpeg: 60],
            options: EncodingOptions(progressive: false), processors: [.blur(sigma: 1)])])

        let b = try #require(plan.sources.first { $0.identifier.rawValue == "b.png" })
        #expect(b.placeholders == [.averageColor, .blurHash])
        #expect(b.variants.map(\.request) == [
            VariantRequest(width: 100, height: 100, scale: 3, fit: .cover(.north), format: .fixed(.webp),
                           quality: [.webp: 75], options: EncodingOptions(effort: 5), processors: [.grayscale]),
            VariantRequest(width: 100, height: 100, scale: 3, fit: .cover(.north), format: .fixed(.jpeg),
                           quality: [.jpeg: 82], options: EncodingOptions(progressive: true), processors: [.grayscale]),
        ])
    }

    @Test func defaultPresetsApplyToEntriesWithoutPresetsOrBox() throws {
        let yaml = """
        version: 1
        output: Out.warmcache
        defaults: { presets: [small, large], formats: [png] }
        presets:
          small: { width: 10 }
          large: { width: 20 }
          other: { width: 30 }
        images:
          - path: a.png
          - path: b.png
            presets: [other]
          - path: c.png
            height: 5
        """
        let plan = try fixture.load(yaml)
        #expect(plan.sources.map { $0.variants.map(\.preset) } == [["small", "large"], ["other"], ["(entry)"]])
        #expect(plan.sources[2].variants.first?.request.height == 5)
    }

    @Test func yamlAnchorsAndMergeKeysShareSettings() throws {
        let yaml = """
        version: 1
        output: Out.warmcache
        presets:
          square: &square { width: 64, height: 64, fit: cover, formats: [webp] }
          square-gray:
            <<: *square
            processors: [grayscale]
            width: 32
        images:
          - path: a.png
            presets: [square, square-gray]
        """
        let requests = try variants(yaml).map(\.request)
        #expect(requests.map(\.width) == [64, 32])
        #expect(requests.map(\.height) == [64, 64])
        #expect(requests.map(\.processors) == [[], [.grayscale]])
        #expect(requests.allSatisfy { $0.fit == .cover(.centre) && $0.format == .fixed(.webp) })
    }

    @Test func identicalRequestsFromTwoPresetsAreMadeOnce() throws {
        let yaml = minimalManifest(presets: """
          a: { width: 64, formats: [webp, png] }
          b: { width: 64, formats: [png, jpeg] }
        """, images: "  - path: a.png\n    presets: [a, b]")
        let variants = try variants(yaml)
        #expect(variants.map(\.preset) == ["a", "a", "b"])
        #expect(variants.map(\.request.format) == [.fixed(.webp), .fixed(.png), .fixed(.jpeg)])
    }

    @Test func quotaAndScaleShorthands() throws {
        let yaml = minimalManifest(presets: "  a: { width: 64, formats: auto, quality: 70, scales: 2 }\n"
                                   + "  original: { formats: [webp], scales: [1, 2, 3] }",
                                   images: "  - path: a.png\n    presets: [a, original]")
        let requests = try variants(yaml).map(\.request)
        #expect(requests.count == 2)
        #expect(requests[0].format == .auto())
        #expect(requests[0].scale == 2)
        #expect(requests[0].quality == [.jpeg: 70, .png: 70])
        // Without a box the source keeps its size, so only scale 1 is made.
        #expect(requests[1].width == nil && requests[1].height == nil && requests[1].scale == 1)
    }

    @Test func encoderOptionsOnlyReachTheFormatsTheyAffect() throws {
        let yaml = minimalManifest(presets: """
          a:
            width: 64
            formats: [jpeg, webp, png, avif]
            lossless: true
            progressive: true
            subsample: "4:4:4"
            effort: 2
            palette: true
            keep_icc: true
        """, images: "  - path: a.png\n    presets: [a]")
        let options = try variants(yaml).map(\.request.options)
        #expect(options == [
            EncodingOptions(progressive: true, chromaSubsampling: false, keepICCProfile: true),
            EncodingOptions(lossless: true, chromaSubsampling: false, effort: 2, keepICCProfile: true),
            EncodingOptions(progressive: true, effort: 2, palette: true, keepICCProfile: true),
            EncodingOptions(lossless: true, chromaSubsampling: false, effort: 2, keepICCProfile: true),
        ])
    }

    @Test func warningsForSettingsThatDoNothing() throws {
        let yaml = minimalManifest(presets: """
          a: { width: 64, gravity: north, background: "#fff", formats: [webp, webp] }
          b: { width: 64, formats: [jpeg], lossless: true }
          unused: { width: 1 }
        """, images: "  - path: a.png\n    presets: [a, b, a]")
        let warnings = try fixture.warnings(yaml)
        #expect(warnings == [
            "manifest.yml:4:28: warning: preset 'a': 'gravity' only applies to 'fit: cover'; this variant uses"
                + " 'fit: inside'",
            "manifest.yml:4:47: warning: preset 'a': 'background' only applies to 'fit: contain' (use"
                + " '{ flatten: ... }' to fill transparency); this variant uses 'fit: inside'",
            "manifest.yml:4:71: warning: format 'webp' is listed twice",
            "manifest.yml:5:46: warning: preset 'b': 'lossless' has no effect on jpeg; it applies to webp, avif,"
                + " heic, jxl",
            "manifest.yml:6:3: warning: preset 'unused' is not used by any image",
            "manifest.yml:10:21: warning: preset 'a' is listed twice",
        ])
    }

    @Test func emptyImagesIsAWarning() throws {
        let plan = try fixture.load("version: 1\noutput: Out.warmcache\nimages: []\n")
        #expect(plan.sources.isEmpty)
        #expect(plan.warnings.map { fixture.relative($0.description) } == [
            "manifest.yml:3:1: warning: 'images' is empty: the bundle will hold no images",
        ])
    }
}
