import Foundation
import Testing
import WarmCache
@testable import WarmCacheBuilder

/// What must be ready before a bundle is published (its signed statement) is made from the new
/// index itself, just before it replaces the one in place; if that fails, nothing is published.
@Suite struct BeforePublishingTests {
    struct SigningFailed: Error {}

    /// A writer that adds source `c` to the bundle, with `hook` before publishing.
    private func addSource(to bundle: URL, hook: @escaping @Sendable (URL) throws -> Void) throws {
        let writer = BundleWriter(bundleURL: bundle, generator: "warm-cache tests")
        writer.setBeforePublishing(hook)
        try writer.prepare()
        var contents = BundleContents()
        for name in ["a", "b", "c"] {
            let identifier = SourceIdentifier("https://img.test/\(name).jpg")
            contents.sources.append(.init(identifier: identifier, contentSHA256: ContentHash.sha256(Data(name.utf8)),
                                          format: "jpeg", pixelSize: PixelSize(width: 40, height: 30), byteCount: 100))
            let key = VariantKey(source: identifier, spec: VariantSpec(width: 10, height: nil, format: .jpeg))
            let blob = try writer.storeBlob(Data("new \(name)".utf8), format: .jpeg)
            contents.variants.append(.init(key: key, pixelSize: PixelSize(width: 10, height: 8), byteCount: blob.byteCount,
                                           blobSHA256: blob.sha256, hasAlpha: false, presets: ["card"]))
        }
        do {
            try writer.commit(contents)
        } catch {
            writer.abandon()
            throw error
        }
    }

    @Test func aFailureBeforePublishingLeavesTheIndexAndStatementInPlace() throws {
        let directory = try BundleFixtures.temporaryDirectory("before-publishing")
        defer { try? FileManager.default.removeItem(at: directory) }
        let bundle = directory.appendingPathComponent("Images.warmcache")
        try BundleFixtures.write(to: bundle, sources: ["https://img.test/a.jpg", "https://img.test/b.jpg"])
        try Data("the statement of the index in place".utf8).write(to: bundle.appendingPathComponent("statement.json"))
        let before = try BundleFixtures.snapshot(bundle)

        #expect(throws: SigningFailed.self) { try addSource(to: bundle) { _ in throw SigningFailed() } }
        #expect(try BundleFixtures.snapshot(bundle) == before)
        #expect(try BundleVerifier(bundleURL: bundle).verify().warnings.isEmpty)

        // Without a failure the hook sees exactly the index that is then published.
        let seen = Locked<Data?>(nil)
        try addSource(to: bundle) { index in seen.withLock { $0 = FileManager.default.contents(atPath: index.path) } }
        #expect(seen.withLock { $0 } == FileManager.default.contents(atPath: bundle.appendingPathComponent("index.sqlite").path))
    }
}
