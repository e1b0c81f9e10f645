import Foundation
import Testing
import WarmCache
import WarmCacheImaging
@testable import WarmCacheBuilder

/// The shipped `manifest.example.yml` loads offline and expands as documented.
@Suite struct ManifestExampleTests {
    let plan: WarmPlan

    init() throws {
        let url = RepositoryFiles.root.appendingPathComponent("manifest.example.yml")
        plan = try ManifestLoader(environment: [:]).load(contentsOf: url)
    }

    @Test func loadsWithoutWarnings() {
        #expect(plan.warnings.map(\.description) == [])
        #expect(plan.output == RepositoryFiles.root.appendingPathComponent("Build/Images.warmcache").standardizedFileURL)
    }

    @Test func sourcesAreSortedAndIdentifiedByKeyOrPath() {
        #expect(plan.sources.map(\.identifier.rawValue) == [
            "Examples/Images/camera.png", "Examples/Images/chelsea.png",
            "asset://coffee", "asset://coins", "asset://rocket",
        ])
        let coffee = plan.sources.first { $0.identifier.rawValue == "asset://coffee" }
        #expect(coffee?.location == .file(RepositoryFiles.root.appendingPathComponent("Examples/Images/coffee.png")
            .standardizedFileURL))
        #expect(coffee?.placeholders == [.averageColor, .thumbHash])
        let chelsea = plan.sources.first { $0.identifier.rawValue == "Examples/Images/chelsea.png" }
        #expect(chelsea?.placeholders == [.averageColor, .thumbHash, .blurHash])
    }

    @Test func presetsExpandToBoxTimesScalesTimesFormats() throws {
        let chelsea = try #require(plan.sources.first { $0.identifier.rawValue == "Examples/Images/chelsea.png" })
        // thumb and card: one scale (3) x one smallest format each; hero: one scale (2) x 2 fixed formats.
        #expect(chelsea.variants.count == 1 + 1 + 2)
        let smallest = AppPlatforms([.ios: "16.0", .macos: "13.0"]).smallest
        #expect(smallest == .smallest(opaque: [.avif, .webp, .jpeg], alpha: [.avif, .webp]))
        let thumb = chelsea.variants.filter { $0.preset == "thumb" }.map(\.request)
        #expect(thumb.map(\.scale) == [3])
        #expect(thumb.allSatisfy { $0.format == smallest && $0.qualityTarget == 80 })
        #expect(thumb.allSatisfy { $0.width == 64 && $0.height == 64 && $0.fit == .cover(.attention) })
        #expect(thumb[0].quality == [.jpeg: .perceptual, .webp: .perceptual, .avif: .perceptual])
        #expect(thumb[0].options == EncodingOptions(progressive: true, keepICCProfile: false, speed: .balanced))
        let hero = chelsea.variants.filter { $0.preset == "hero" }.map(\.request)
        #expect(hero.map(\.format) == [.fixed(.avif), .fixed(.jpeg)])
        #expect(hero.map(\.quality) == [[.avif: 60], [.jpeg: 82]])
        #expect(hero.map(\.scale) == [2, 2])
        #expect(hero.allSatisfy { $0.width == 1024 && $0.height == nil && $0.fit == .inside })
        #expect(plan.budget == 5_000_000)
    }

    @Test func entryOverridesAndEntryBoxes() throws {
        let rocket = try #require(plan.sources.first { $0.identifier.rawValue == "asset://rocket" })
        #expect(Set(rocket.variants.map(\.preset)) == ["thumb", "card"])
        #expect(rocket.variants.allSatisfy { $0.request.qualityTarget == 75 })

        let camera = try #require(plan.sources.first { $0.identifier.rawValue == "Examples/Images/camera.png" })
        #expect(camera.variants == [PlannedVariant(preset: PlannedVariant.entryPreset, request: VariantRequest(
            width: 200, height: 150, scale: 2, fit: .cover(.north), format: .fixed(.jpeg), quality: [.jpeg: .perceptual],
            qualityTarget: 80, options: EncodingOptions(progressive: true, keepICCProfile: false, speed: .balanced),
            processors: [.grayscale]))])
    }

    @Test func processorsAndContain() throws {
        let coins = try #require(plan.sources.first { $0.identifier.rawValue == "asset://coins" })
        let avatar = coins.variants.filter { $0.preset == "avatar" }.map(\.request)
        #expect(avatar.map(\.scale) == [3])
        #expect(avatar.allSatisfy { $0.processors == [.roundCorners(radius: 24)] && $0.fit == .cover(.centre) })
        let badge = coins.variants.filter { $0.preset == "badge" }.map(\.request)
        #expect(badge.map(\.format) == [.auto()])
        #expect(badge.first?.fit == .contain(background: .white))
        #expect(badge.first?.processors == [.grayscale, .blur(sigma: 0.5)])
        #expect(badge.first?.quality == [.jpeg: .perceptual, .png: .perceptual])
    }

    @Test func fetchSettings() {
        #expect(plan.fetch.concurrency == 32)
        #expect(plan.fetch.perHost == 8)
        #expect(plan.fetch.requestTimeout == 30)
        #expect(plan.fetch.connectTimeout == 10)
        #expect(plan.fetch.retries == 3)
        #expect(plan.fetch.retryDelay == 0.5)
        #expect(plan.fetch.maxBytes == 50_000_000)
        #expect(plan.fetch.maxRedirects == 5)
        #expect(plan.fetch.userAgent == "warm-cache/1 (example)")
        #expect(plan.fetch.headers.map(\.name) == ["Accept"])
        let cdn = plan.fetch.headers(forHost: "CDN.example.com")
        #expect(cdn.map(\.name) == ["Accept", "Authorization"])
        #expect(cdn.last?.value.unredactedValue == "Bearer none")
    }

    @Test func summary() {
        let summary = plan.summary
        #expect(summary.sourceCount == 5)
        #expect(summary.localSourceCount == 5)
        #expect(summary.remoteSourceCount == 0)
        #expect(summary.variantCount == plan.sources.reduce(0) { $0 + $1.variants.count })
        #expect(summary.variantsByPreset["(entry)"] == 1)
        // The same text docs/manifest.md shows.
        #expect(summary.description == """
        5 sources (0 remote, 5 local), 12 variants
          formats: auto 1, avif 2, jpeg 3, smallest 6
          presets: (entry) 1, avatar 2, badge 1, card 2, hero 4, thumb 2
        """)
    }
}
