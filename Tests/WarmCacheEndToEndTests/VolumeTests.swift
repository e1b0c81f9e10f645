import Foundation
import Testing
import WarmCache
import WarmCacheTestSupport

/// Thousands of distinct sources over loopback, warmed by the `warm-cache` executable several
/// times in a row. The executable runs as a child process, so a crash inside libvips (a SIGSEGV
/// or an abort) is seen as a signal instead of taking the test runner down; every run must exit
/// 0 and publish a bundle holding every source.
///
/// Sized against the concurrency crash it guards (libvips 8.14's vector paths racing inside
/// liborc: about every other warm of 2,000 small sources) while staying cheap in CI: small
/// images, four renders in flight so the threads interleave, and the later runs re-render from
/// the cached originals without the network.
@Suite struct VolumeTests {
    static let sourceCount = 2_000
    /// Box sizes (points) of the runs; each run changes it so every source is rendered again.
    static let boxes = [64, 56, 72]

    @Test func thousandsOfSourcesWarmRunAfterRunWithoutACrashOrALostSource() async throws {
        let images = try SourceImages.small(Self.sourceCount)
        var routes: [String: FixtureRoute] = [:]
        for (index, image) in images.enumerated() {
            routes["/v/\(index).jpg"] = .image(image, contentType: "image/jpeg", etag: "\"\(index)\"")
        }
        try await withWorld(routes: routes) { scratch, server in
            let urls = (0..<Self.sourceCount).map { server.url("/v/\($0).jpg").absoluteString }
            try scratch.write(urls.joined(separator: "\n") + "\n", to: "urls.txt")
            for (run, box) in Self.boxes.enumerated() {
                try scratch.write("""
                    version: 1
                    output: Out/Volume.warmcache
                    defaults:
                      formats: [jpeg]
                      scales: [1, 2]
                      placeholder: none
                    presets:
                      thumb: { width: \(box), height: \(box), fit: cover }
                    images:
                      - urls_from: urls.txt
                        presets: [thumb]

                    """, to: "manifest.yml")
                let network = run == 0 ? [] : ["--offline"]
                let result = try await CLI.start(["warm", "manifest.yml", "--quiet", "--cache-dir", "cache",
                                                  "--jobs", "4"] + network, in: scratch.url).wait(timeout: 900)
                #expect(!result.signalled, "run \(run + 1) crashed: \(result)")
                try #require(result.status == 0 && !result.signalled, "run \(run + 1): \(result)")

                let bundle = try CacheBundle(contentsOf: scratch.path("Out/Volume.warmcache"))
                #expect(bundle.info.sourceCount == Self.sourceCount, "run \(run + 1)")
                #expect(bundle.info.variantCount == 2 * Self.sourceCount, "run \(run + 1)")
                let missing = try urls.filter { try !bundle.contains(SourceIdentifier($0)) }
                #expect(missing.isEmpty, "run \(run + 1) lost \(missing.count) sources, e.g. \(missing.prefix(3))")
                // Rendered again for this run's box, not carried over from the previous one.
                let sample = try bundle.images(for: SourceIdentifier(urls[run]))
                #expect(Set(sample.compactMap { $0.key?.spec.width }) == [box], "run \(run + 1)")
            }
        }
    }
}
