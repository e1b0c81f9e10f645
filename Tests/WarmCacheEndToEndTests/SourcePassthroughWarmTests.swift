import Foundation
import Testing
import WarmCache
import WarmCacheBuilder
import WarmCacheImaging

/// Never worse than the source: a hero that keeps a hard-compressed JPEG's pixels ships as that
/// JPEG (its comment removed), recorded as the source kept, and a re-warm reuses it as it was.
@Suite struct SourcePassthroughWarmTests {
    static let manifest = """
        version: 1
        output: Out/Images.warmcache
        platforms: { ios: "16.0" }
        defaults: { formats: [smallest], quality: auto, quality_target: 95, scales: [3] }
        presets:
          hero: { width: 1024 }
        images:
          - { path: hard.jpg, presets: [hero] }
        """

    /// coffee.jpg at its own size as JPEG quality 40, with a comment segment.
    static func hardJPEG() throws -> Data {
        let coffee = try SourceImages.engine.open(Data(try SourceImages.fixture("coffee.jpg").bytes), name: "coffee")
        let width = coffee.info.pixelWidth
        let jpeg = try coffee.render([VariantSpec(width: width, height: nil, format: .jpeg, quality: 40)])[0].data
        let comment = Data("taken at home".utf8)
        return jpeg.prefix(2) + Data([0xFF, 0xFE, 0, UInt8(comment.count + 2)]) + comment + jpeg.dropFirst(2)
    }

    @Test func theHeroIsTheSourceFileAndIsReusedAsSuch() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let source = try Self.hardJPEG()
        try source.write(to: scratch.path("hard.jpg"))
        let manifest = try scratch.write(Self.manifest, to: "manifest.yml")
        let options = Warm.options(cache: scratch.path("cache"))

        let first = try await Warm.run(manifest, options: options).published()
        let hero = try #require(first.sources.first?.variants.first)
        #expect(hero.format == "jpeg" && hero.encoderQuality == nil && hero.qualityScore == 100, "\(hero)")
        #expect(hero.bytes < source.count)
        let blob = try Data(contentsOf: scratch.path("Out/Images.warmcache").appendingPathComponent(hero.blob))
        #expect(blob.count == hero.bytes && blob == source.prefix(2) + source.dropFirst(2 + 4 + 13))
        #expect(blob.range(of: Data("taken at home".utf8)) == nil)

        let second = try await Warm.run(manifest, options: options).published()
        #expect(second.totals.variantsEncoded == 0)
        #expect(second.sources.first?.variants.first.map { [$0.blob, "\($0.encoderQuality.map(String.init) ?? "-")",
                                                           "\($0.qualityScore ?? 0)"] }
            == [hero.blob, "-", "100.0"])
    }
}
