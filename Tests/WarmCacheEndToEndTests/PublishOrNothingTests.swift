import Foundation
import Testing
import WarmCache
import WarmCacheBuilder
import WarmCacheTestSupport

/// When a run publishes nothing (`strict` with a failure, or every source failed), the
/// previous bundle stays byte-for-byte as it was, and a first run leaves no output behind.
@Suite struct PublishOrNothingTests {
    /// A first bundle from two good sources; returns its snapshot.
    private func publishFirstBundle(_ scratch: Scratch, _ server: FixtureServer) async throws -> [String: String] {
        let manifest = try scratch.write(Manifests.yaml(urls: [server.url("/a.jpg"), server.url("/b.png")]),
                                         to: "first.yml")
        let report = try await Warm.run(manifest, options: Warm.options(cache: scratch.path("cache"))).published()
        #expect(report.status == .ok)
        return snapshot(of: scratch.path("Out/Images.warmcache"))
    }

    private func routes() throws -> [String: FixtureRoute] {
        let images = try SourceImages.distinct(4)
        return [
            "/a.jpg": .image(images[0].bytes, contentType: "image/jpeg", etag: "\"a\""),
            "/b.png": .image(images[1].bytes, contentType: "image/png", etag: "\"b\""),
            "/c.jpg": .image(images[2].bytes, contentType: "image/jpeg", etag: "\"c\""),
            "/d.png": .image(images[3].bytes, contentType: "image/png", etag: "\"d\""),
        ]
    }

    @Test func strictWithOneFailureWritesNothingAndLeavesThePreviousBundleByteIdentical() async throws {
        try await withWorld(routes: try routes()) { scratch, server in
            let before = try await publishFirstBundle(scratch, server)
            #expect(!before.isEmpty)

            // New good sources (whose blobs would be new) and one 404, with strict.
            let urls = [server.url("/a.jpg"), server.url("/c.jpg"), server.url("/d.png"), server.url("/gone.jpg")]
            let manifest = try scratch.write(Manifests.yaml(urls: urls), to: "second.yml")
            let result = try await Warm.run(manifest, options: Warm.options(cache: scratch.path("cache"), strict: true))

            let error = try #require(result.failure, "a strict run with a failed source published")
            #expect(error.kind == .strictFailure)
            #expect(error.message.contains("nothing was written"))
            let report = try #require(error.report)
            #expect(report.status == .failed)
            #expect(report.failures.map(\.identifier) == [server.url("/gone.jpg").absoluteString])
            #expect(report.failures.first?.location == server.url("/gone.jpg").absoluteString)
            #expect(report.failures.first?.failure?.httpStatus == 404)

            let after = snapshot(of: scratch.path("Out/Images.warmcache"))
            #expect(after == before, "bundle changed: \(differences(before, after))")
            let bundle = try CacheBundle(contentsOf: scratch.path("Out/Images.warmcache"))
            #expect(bundle.info.sourceCount == 2)
            #expect(try !bundle.contains(SourceIdentifier(server.url("/c.jpg").absoluteString)))
        }
    }

    @Test func everySourceFailingThrowsNothingWrittenAndKeepsThePreviousBundle() async throws {
        try await withWorld(routes: try routes()) { scratch, server in
            let before = try await publishFirstBundle(scratch, server)
            server.setRoute("/a.jpg", .status(500))
            server.setRoute("/b.png", .status(404))
            let urls = [server.url("/a.jpg"), server.url("/b.png"), server.url("/nowhere.jpg")]
            // A fresh cache, so there is no stale original to fall back on.
            let manifest = try scratch.write(Manifests.yaml(urls: urls), to: "second.yml")
            let result = try await Warm.run(manifest, options: Warm.options(cache: scratch.path("cache2")))

            let error = try #require(result.failure, "a run where every source failed published")
            #expect(error.kind == .nothingWritten)
            #expect(error.message.contains("all 3 sources failed"))
            #expect(error.report?.totals.sourcesFailed == 3)
            for url in urls {
                #expect(error.report?.source(url)?.failure != nil, "\(url)")
            }
            let after = snapshot(of: scratch.path("Out/Images.warmcache"))
            #expect(after == before, "bundle changed: \(differences(before, after))")
            #expect(try BundleVerifier(bundleURL: scratch.path("Out/Images.warmcache")).verify().isValid)
        }
    }

    @Test func aFirstRunThatPublishesNothingLeavesNoOutput() async throws {
        try await withWorld { scratch, server in
            let manifest = try scratch.write(Manifests.yaml(urls: [server.url("/x.jpg"), server.url("/y.jpg")]),
                                             to: "manifest.yml")
            let result = try await Warm.run(manifest, options: Warm.options(cache: scratch.path("cache")))
            #expect(result.failure?.kind == .nothingWritten)
            #expect(!FileManager.default.fileExists(atPath: scratch.path("Out/Images.warmcache").path))
        }
    }
}
