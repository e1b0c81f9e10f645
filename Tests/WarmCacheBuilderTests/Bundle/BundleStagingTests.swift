import Foundation
import Testing
import WarmCache
@testable import WarmCacheBuilder

@Suite("Bundle writer staging")
struct BundleStagingTests {
    /// Rows added one source at a time, in a shuffled order (as sources finish in a run), give the
    /// same index, byte for byte, as the whole contents committed at once.
    @Test("rows staged in any order publish a byte-identical index")
    func anyOrder() throws {
        let sources = (0..<300).map { "https://cdn.example.com/\($0).jpg" }
        let reference = try BundleFixtures.temporaryDirectory().appendingPathComponent("A.warmcache")
        let written = try BundleFixtures.write(to: reference, sources: sources)

        let shuffled = try BundleFixtures.temporaryDirectory().appendingPathComponent("B.warmcache")
        let writer = BundleWriter(bundleURL: shuffled, generator: "warm-cache tests")
        try writer.prepare()
        for variant in written.contents.variants {
            try writer.storeBlob(written.bytes[variant.key.rawValue]!, format: variant.key.spec.format)
        }
        var generator = SystemRandomNumberGenerator()
        for source in written.contents.sources.shuffled(using: &generator) {
            let variants = written.contents.variants.filter { $0.key.source == source.identifier }
            try writer.add(source, variants: variants.shuffled(using: &generator))
        }
        let summary = try writer.commit()
        #expect(summary.sourceCount == sources.count)
        #expect(summary.variantCount == written.contents.variants.count)
        let first = try Data(contentsOf: reference.appendingPathComponent(BundleFormat.indexFileName))
        let second = try Data(contentsOf: shuffled.appendingPathComponent(BundleFormat.indexFileName))
        #expect(first == second)
        let objects = try BundleFixtures.snapshot(shuffled.appendingPathComponent("objects"))
        #expect(objects.count == written.contents.variants.count)
        #expect(!FileManager.default.fileExists(atPath: shuffled.appendingPathComponent(".tmp").path))
    }

    @Test("a source staged twice is refused, naming it")
    func duplicateSource() throws {
        let url = try BundleFixtures.temporaryDirectory().appendingPathComponent("Images.warmcache")
        let writer = BundleWriter(bundleURL: url)
        try writer.prepare()
        let source = BundleContents.Source(identifier: SourceIdentifier("https://cdn.example.com/a.jpg"),
                                           contentSHA256: String(repeating: "0", count: 64), format: "jpeg",
                                           pixelSize: PixelSize(width: 1, height: 1), byteCount: 1)
        try writer.add(source, variants: [])
        #expect {
            try writer.add(source, variants: [])
        } throws: { error in
            let error = error as? BundleWriterError
            return error?.kind == .inconsistentContents && error?.detail.contains("a.jpg") == true
        }
        writer.abandon()
        #expect(!FileManager.default.fileExists(atPath: url.path))
    }
}
