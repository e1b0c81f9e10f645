import Foundation
import Testing
import WarmCache
import WarmCacheBuilder
import WarmCacheTestSupport

/// A variant at a quality target comes out as the same file whatever else the manifest asks for,
/// in whatever order its sources come and however the run is sharded; two scales clamped to the
/// same pixels share one file.
@Suite struct ReproducibleBytesTests {
    static let photos = ["rocket.jpg", "coffee.png", "chelsea.png", "coins.png"]

    static let presets = """
        defaults:
          formats: [webp, jpeg]
          quality: auto
          placeholder: none
        presets:
          thumb: { width: 64, height: 64, fit: cover }
          card: { width: 320, scales: [1, 2, 3] }
          hero: { width: 1024 }
        """

    /// The sample photos copied into the scratch folder, and a manifest of them with `presets`.
    static func manifest(in scratch: Scratch, named name: String, photos: [String] = photos,
                         presets: [String]) throws -> URL {
        let examples = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Examples/Images")
        var text = "version: 1\noutput: Out/Images.warmcache\n\(Self.presets)\nimages:\n"
        for photo in photos {
            if !FileManager.default.fileExists(atPath: scratch.path(photo).path) {
                try FileManager.default.copyItem(at: examples.appendingPathComponent(photo), to: scratch.path(photo))
            }
            text += "  - path: \(photo)\n    key: asset://\(photo)\n    presets: [\(presets.joined(separator: ", "))]\n"
        }
        return try scratch.write(text, to: name)
    }

    /// Each variant's blob, by cache key.
    static func blobs(_ report: WarmReport) -> [String: String] {
        Dictionary(uniqueKeysWithValues: report.sources.flatMap(\.variants).map { ($0.cacheKey, $0.blob) })
    }

    @Test func aCardAloneIsTheSameFileAsACardAmongOtherPresets() async throws {
        try await withWorld { scratch, _ in
            let alone = try Self.manifest(in: scratch, named: "card.yml", presets: ["card"])
            let among = try Self.manifest(in: scratch, named: "all.yml", presets: ["thumb", "card", "hero"])
            let cards = Self.blobs(try await Warm.run(alone, output: scratch.path("A/Images.warmcache"),
                                                      options: Warm.options(cache: scratch.path("a"))).published())
            let all = Self.blobs(try await Warm.run(among, output: scratch.path("B/Images.warmcache"),
                                                    options: Warm.options(cache: scratch.path("b"))).published())
            #expect(cards.count == Self.photos.count * 3 * 2)
            for (key, blob) in cards {
                #expect(all[key] == blob, "\(key)")
            }
            // The card warmed again among the other presets, in the first run's cache and output:
            // its source is rendered again, to the same files.
            let again = Self.blobs(try await Warm.run(among, output: scratch.path("A/Images.warmcache"),
                                                      options: Warm.options(cache: scratch.path("a"))).published())
            #expect(again == all)
        }
    }

    @Test func twoScalesClampedToTheSamePixelsShareOneFile() async throws {
        try await withWorld { scratch, _ in
            // rocket.jpg is 640 px wide: the card at 2x and 3x is 640 px both times.
            let manifest = try Self.manifest(in: scratch, named: "m.yml", photos: ["rocket.jpg"], presets: ["card"])
            let report = try await Warm.run(manifest, options: Warm.options(cache: scratch.path("c"))).published()
            let variants = report.sources.flatMap(\.variants)
            for format in ["webp", "jpeg"] {
                let scaled = variants.filter { $0.format == format && $0.pixelWidth == 640 }
                #expect(scaled.count == 2, "\(format): \(variants.map(\.cacheKey))")
                #expect(Set(scaled.map(\.blob)).count == 1, "\(format): one file for 2x and 3x")
            }
            let objects = try FileManager.default.subpathsOfDirectory(atPath: scratch.path("Out/Images.warmcache/objects").path)
                .filter { $0.contains(".") }
            #expect(objects.count == 4, "1x and 2x = 3x, in two formats: \(objects)")
        }
    }

    @Test func aShardAndSourcesInAnotherOrderGiveTheSameFilesAsTheWholeRun() async throws {
        try await withWorld { scratch, _ in
            let whole = try Self.manifest(in: scratch, named: "whole.yml", presets: ["thumb", "card"])
            let expected = Self.blobs(try await Warm.run(whole, options: Warm.options(cache: scratch.path("c"))).published())
            let reversed = try Self.manifest(in: scratch, named: "reversed.yml", photos: Self.photos.reversed(),
                                             presets: ["thumb", "card"])
            let backwards = try await Warm.run(reversed, output: scratch.path("R/Images.warmcache"),
                                               options: Warm.options(cache: scratch.path("r"))).published()
            #expect(Self.blobs(backwards) == expected)
            let plan = try ManifestLoader(environment: [:]).load(contentsOf: whole)
            var sharded: [String: String] = [:]
            for index in 1...2 {
                var part = plan.restricted(to: try Shard(index: index, count: 2))
                part.output = scratch.path("S/part-\(index).warmcache")
                var options = Warm.options(cache: scratch.path("s\(index)"))
                options.reportURL = scratch.path("S/report-\(index).json")
                _ = try await WarmPipeline(plan: part, options: options, logger: Warm.logger).run()
                let report = try JSONDecoder().decode(WarmReport.self, from: Data(contentsOf: options.reportURL!))
                sharded.merge(Self.blobs(report)) { first, _ in first }
            }
            #expect(sharded == expected)
        }
    }
}
