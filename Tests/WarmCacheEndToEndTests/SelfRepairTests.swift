import Foundation
import Testing
import WarmCache
import WarmCacheBuilder

/// A damaged bundle repairs itself on the next warm: a blob with a flipped byte or a deleted blob
/// is noticed where the run would reuse it, rendered again and written afresh; `verify` names the
/// sources and keys concerned until then, and lookups never answer with a blob that is not there.
@Suite struct SelfRepairTests {
    @Test func warmRewritesDamagedAndMissingBlobsThatVerifyNamed() async throws {
        let images = try SourceImages.distinct(3)
        try await withWorld { scratch, _ in
            var yaml = "version: 1\noutput: Out/Images.warmcache\n\(Manifests.presets)\nimages:\n"
            for (index, image) in images.enumerated() {
                let name = "images/\(index).\(image.contentType == "image/png" ? "png" : "jpg")"
                try FileManager.default.createDirectory(at: scratch.path("images"), withIntermediateDirectories: true)
                try Data(image.bytes).write(to: scratch.path(name))
                yaml += "  - path: \(name)\n    key: asset://\(index)\n    presets: [thumb, card]\n"
            }
            let manifest = try scratch.write(yaml, to: "manifest.yml")
            let options = Warm.options(cache: scratch.path("cache"))
            _ = try await Warm.run(manifest, options: options).published()
            let bundleURL = scratch.path("Out/Images.warmcache")

            let bundle = try CacheBundle(contentsOf: bundleURL)
            let flipped = try #require(try bundle.images(for: SourceIdentifier("asset://0")).first { $0.format == .webp })
            let deleted = try #require(try bundle.images(for: SourceIdentifier("asset://1")).first { $0.format == .png })
            var bytes = try Data(contentsOf: flipped.fileURL)
            bytes[bytes.count / 2] ^= 0xff
            try bytes.write(to: flipped.fileURL)
            try FileManager.default.removeItem(at: deleted.fileURL)

            // verify names both, with their sources and keys and how to repair.
            let before = try BundleVerifier(bundleURL: bundleURL).verify()
            let hash = try #require(before.problems.first { $0.kind == .hashMismatch })
            #expect(hash.sources == ["asset://0"])
            #expect(hash.cacheKeys?.contains(flipped.cacheKey) == true)
            let missing = try #require(before.problems.first { $0.kind == .missingBlob })
            #expect(missing.sources == ["asset://1"])
            #expect(missing.cacheKeys == [deleted.cacheKey])
            #expect(missing.description.contains("warm-cache warm"))

            // Lookups never hand out the deleted blob.
            #expect(throws: CacheBundleError.self) { try bundle.image(forCacheKey: deleted.cacheKey) }
            let best = try bundle.bestImage(for: "asset://1", size: PointSize(width: 100, height: 0), scale: 1,
                                            accepting: [.png, .jpeg], preset: "card")
            #expect(best != nil && best?.cacheKey != deleted.cacheKey)

            // The next warm checks what it reuses and writes both again; the third source is reused.
            let report = try await Warm.run(manifest, options: options).published()
            #expect(report.totals.variantsEncoded == 2 * Manifests.variantsPerSource, "\(report.totals)")
            #expect(report.totals.variantsReused == Manifests.variantsPerSource)
            let after = try BundleVerifier(bundleURL: bundleURL).verify()
            #expect(after.isValid, "\(after.problems)")
            #expect(try Data(contentsOf: flipped.fileURL) != bytes)
            #expect(try CacheBundle(contentsOf: bundleURL).image(forCacheKey: deleted.cacheKey) != nil)
        }
    }
}
