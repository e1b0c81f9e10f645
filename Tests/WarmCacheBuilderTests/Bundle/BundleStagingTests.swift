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

    /// A blob about to be reused is trusted while its file has the stamp recorded when its bytes
    /// were last known right (as git trusts its index); any other stamp means reading and hashing it.
    @Test("a blob is trusted by its file's stamp, and hashed when the stamp differs")
    func blobStamps() throws {
        let url = try BundleFixtures.temporaryDirectory().appendingPathComponent("Images.warmcache")
        let writer = BundleWriter(bundleURL: url, generator: "warm-cache tests")
        try writer.prepare()
        let bytes = Data((0..<4096).map { UInt8($0 % 251) })
        let stored = try writer.storeBlob(bytes, format: .jpeg)
        let written = try #require(writer.blobStamp(sha256: stored.sha256, format: .jpeg))
        #expect(writer.checkBlob(sha256: stored.sha256, format: .jpeg, byteCount: bytes.count, known: written)
            == (true, written))
        #expect(writer.checkBlob(sha256: stored.sha256, format: .jpeg, byteCount: bytes.count, known: nil)
            == (true, written), "an unknown stamp: hashed, intact, stamped")

        // Damaged in place (same size): the recorded stamp no longer matches, so the bytes are hashed.
        let path = url.appendingPathComponent(BundleFormat.objectPath(sha256: stored.sha256, format: .jpeg)).path
        var damaged = bytes
        damaged[100] ^= 0xff
        try damaged.write(to: URL(fileURLWithPath: path))
        #expect(writer.checkBlob(sha256: stored.sha256, format: .jpeg, byteCount: bytes.count, known: written).intact
            == false)
        // Only a stamp taken after the damage vouches for the damaged bytes: stamps are what is trusted.
        let after = try #require(writer.blobStamp(sha256: stored.sha256, format: .jpeg))
        #expect(after != written)
        try FileManager.default.removeItem(atPath: path)
        #expect(writer.checkBlob(sha256: stored.sha256, format: .jpeg, byteCount: bytes.count, known: written).intact
            == false)
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
