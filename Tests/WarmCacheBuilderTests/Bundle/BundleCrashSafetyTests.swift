import Foundation
import Testing
import WarmCache
@testable import WarmCacheBuilder

@Suite("Bundle writer crash safety")
struct BundleCrashSafetyTests {
    let sources = ["https://cdn.example.com/a.jpg", "https://cdn.example.com/b.jpg"]

    /// Writes a good bundle and returns its location and a snapshot of its index and referenced blobs.
    func goodBundle() throws -> (URL, BundleFixtures.Written, [String: Data]) {
        let url = try BundleFixtures.temporaryDirectory().appendingPathComponent("Images.warmcache")
        let written = try BundleFixtures.write(to: url, sources: sources)
        return (url, written, try BundleFixtures.snapshot(url))
    }

    func expectIntact(_ url: URL, _ written: BundleFixtures.Written, _ before: [String: Data],
                      sourceLocation: SourceLocation = #_sourceLocation) throws {
        let after = try BundleFixtures.snapshot(url)
        for (path, data) in before {
            #expect(after[path] == data, "changed: \(path)", sourceLocation: sourceLocation)
        }
        let bundle = try CacheBundle(contentsOf: url)
        for variant in written.contents.variants {
            #expect(try bundle.image(for: variant.key)?.data() == written.bytes[variant.key.rawValue],
                    sourceLocation: sourceLocation)
        }
    }

    @Test("a run that dies after storing new blobs leaves the old bundle readable and unchanged")
    func diesBeforeCommit() throws {
        let (url, written, before) = try goodBundle()
        let writer = BundleWriter(bundleURL: url)
        try writer.prepare()
        try writer.storeBlob(Data("new image".utf8), format: .webp)
        // Simulate the leftovers of a process killed mid-commit.
        try Data("partial index".utf8).write(to: url.appendingPathComponent("index-DEAD.sqlite.tmp"))
        try Data("partial blob".utf8).write(to: url.appendingPathComponent(".tmp/abc.partial"))
        try expectIntact(url, written, before)

        // The next run cleans the leftovers and completes normally.
        let next = try BundleFixtures.write(to: url, sources: sources, salt: "v2")
        #expect(!FileManager.default.fileExists(atPath: url.appendingPathComponent("index-DEAD.sqlite.tmp").path))
        try expectIntact(url, next, [:])
        let objects = try BundleFixtures.snapshot(url.appendingPathComponent("objects"))
        #expect(objects.count == next.contents.variants.count)
    }

    @Test("a failed run removes every blob the published index does not list, even ones it never recorded")
    func abandonSweepsUnlistedBlobs() throws {
        let (url, written, before) = try goodBundle()
        let writer = BundleWriter(bundleURL: url)
        try writer.prepare()
        let stored = try writer.storeBlob(Data("new image".utf8), format: .webp)
        // A blob whose record a full disk lost: only a listing of objects/ finds it.
        let unrecorded = url.appendingPathComponent(BundleFormat.objectPath(sha256: String(repeating: "e", count: 64),
                                                                            format: .jpeg))
        try FileManager.default.createDirectory(at: unrecorded.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data("unrecorded".utf8).write(to: unrecorded)
        writer.abandon()
        #expect(!FileManager.default.fileExists(atPath: writer.blobURL(sha256: stored.sha256, format: .webp).path))
        #expect(!FileManager.default.fileExists(atPath: unrecorded.path))
        #expect(!FileManager.default.fileExists(atPath: url.appendingPathComponent(".tmp").path))
        try expectIntact(url, written, before)
        #expect(try BundleVerifier(bundleURL: url).verify().warnings.isEmpty)
    }

    /// A no-op re-warm: the index it would publish is the published one, byte for byte, so the
    /// commit leaves it (and the objects) alone; garbage still goes if an interrupted run left some.
    @Test("a commit that changes nothing leaves the published index in place, but still cleans up after an interrupted run")
    func unchangedCommit() throws {
        let (url, written, before) = try goodBundle()
        let indexPath = url.appendingPathComponent(BundleFormat.indexFileName).path
        let published = try #require(FileStamp(atPath: indexPath))
        _ = try BundleFixtures.write(to: url, sources: sources)
        #expect(FileStamp(atPath: indexPath) == published, "the same index was written again")
        try expectIntact(url, written, before)
        // Its summary still counts what the index references.
        let rewriter = BundleWriter(bundleURL: url, generator: "warm-cache tests")
        try rewriter.prepare()
        let again = try rewriter.commit(written.contents)
        #expect(FileStamp(atPath: indexPath) == published)
        let blobs = Set(written.contents.variants.map(\.blobSHA256))
        #expect(again.blobCount == blobs.count && again.blobsRemoved == 0)
        #expect(again.blobBytes == written.contents.variants.reduce(0) { $0 + $1.byteCount })
        #expect(again.sourceCount == sources.count && again.variantCount == written.contents.variants.count)

        // A run that stored a blob and died: the next commit, though it changes nothing, removes it.
        let writer = BundleWriter(bundleURL: url)
        try writer.prepare()
        let orphan = try writer.storeBlob(Data("orphan".utf8), format: .webp)
        let orphanPath = url.appendingPathComponent(BundleFormat.objectPath(sha256: orphan.sha256, format: .webp)).path
        #expect(FileManager.default.fileExists(atPath: orphanPath))
        _ = try BundleFixtures.write(to: url, sources: sources)
        #expect(!FileManager.default.fileExists(atPath: orphanPath))
        try expectIntact(url, written, before)
    }

    /// The commit decides "unchanged" by comparing rows with the published index, not bytes: a
    /// change to any one field of any one row, or to `meta`, must still publish.
    @Test("a commit that changes one field of one row, or the manifest fingerprint, publishes it")
    func oneFieldChanged() throws {
        let (url, written, _) = try goodBundle()
        let indexPath = url.appendingPathComponent(BundleFormat.indexFileName).path
        let changes: [(String, (inout BundleContents) -> Void)] = [
            ("a source's original", { $0.sources[1].contentSHA256 = String(repeating: "0", count: 64) }),
            ("a source's format", { $0.sources[0].format = "png" }),
            ("a source's pixel height", { $0.sources[1].pixelSize.height += 1 }),
            ("a placeholder's colour", { $0.sources[0].placeholder?.averageColor = RGBAColor(red: 1, green: 2, blue: 3) }),
            ("a placeholder removed", { $0.sources[1].placeholder = nil }),
            ("a variant's alpha", { $0.variants[3].hasAlpha.toggle() }),
            ("a variant's pixel width", { $0.variants[5].pixelSize.width += 1 }),
            ("a variant's blob", {  // another stored blob of the same format
                $0.variants[0].blobSHA256 = $0.variants[2].blobSHA256
                $0.variants[0].byteCount = $0.variants[2].byteCount
            }),
            ("a preset added", { $0.variants[2].presets.append("hero") }),
            ("the manifest fingerprint", { $0.manifestFingerprint = "another manifest" }),
        ]
        var contents = written.contents
        for (change, apply) in changes {
            apply(&contents)
            let before = try #require(FileStamp(atPath: indexPath))
            let writer = BundleWriter(bundleURL: url, generator: "warm-cache tests")
            try writer.prepare()
            try writer.commit(contents)
            #expect(FileStamp(atPath: indexPath) != before, "\(change): not published")
        }
        // And the same rows once more: left in place.
        let last = try #require(FileStamp(atPath: indexPath))
        let writer = BundleWriter(bundleURL: url, generator: "warm-cache tests")
        try writer.prepare()
        try writer.commit(contents)
        #expect(FileStamp(atPath: indexPath) == last)
    }

    @Test("a commit that references a missing blob publishes nothing")
    func missingBlob() throws {
        let (url, written, before) = try goodBundle()
        var contents = written.contents
        let key = VariantKey(source: SourceIdentifier(sources[0]), spec: VariantSpec(width: 7, height: 7, format: .png))
        contents.variants.append(.init(key: key, pixelSize: PixelSize(width: 7, height: 7), byteCount: 3,
                                       blobSHA256: String(repeating: "ab", count: 32), hasAlpha: true))
        let writer = BundleWriter(bundleURL: url)
        try writer.prepare()
        #expect(throws: BundleWriterError.self) { try writer.commit(contents) }
        try expectIntact(url, written, before)
    }

    @Test("inconsistent contents publish nothing")
    func inconsistentContents() throws {
        let (url, written, before) = try goodBundle()
        var contents = written.contents
        contents.variants.append(contents.variants[0])
        let writer = BundleWriter(bundleURL: url)
        try writer.prepare()
        #expect {
            try writer.commit(contents)
        } throws: { error in
            (error as? BundleWriterError)?.kind == .inconsistentContents
        }
        try expectIntact(url, written, before)
    }

    @Test("a failure after the new index is built publishes nothing and leaves no temporary index")
    func failureAfterIndexBuilt() throws {
        let (url, written, before) = try goodBundle()
        struct Crash: Error {}
        let writer = BundleWriter(bundleURL: url, generator: "x", injectFault: { _ in throw Crash() })
        try writer.prepare()
        let changed = try BundleFixtures.write(to: try BundleFixtures.temporaryDirectory().appendingPathComponent("B.warmcache"),
                                               sources: sources, salt: "v2")
        for data in changed.bytes.values { try writer.storeBlob(data, format: .webp) }
        #expect(throws: BundleWriterError.self) { try writer.commit(written.contents) }
        try expectIntact(url, written, before)
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: url.path).filter { $0.hasSuffix(".sqlite.tmp") }
        #expect(leftovers.isEmpty)
    }

    @Test("abandoning a first run removes the half-made output")
    func abandonFirstRun() throws {
        let url = try BundleFixtures.temporaryDirectory().appendingPathComponent("New.warmcache")
        let writer = BundleWriter(bundleURL: url)
        try writer.prepare()
        try writer.storeBlob(Data("x".utf8), format: .png)
        writer.abandon()
        #expect(!FileManager.default.fileExists(atPath: url.path))
    }

    @Test("refuses to write into a directory that is not a bundle")
    func foreignDirectory() throws {
        let directory = try BundleFixtures.temporaryDirectory()
        try Data("mine".utf8).write(to: directory.appendingPathComponent("notes.txt"))
        let writer = BundleWriter(bundleURL: directory)
        #expect {
            try writer.prepare()
        } throws: { error in
            (error as? BundleWriterError)?.kind == .outputIsNotABundle
        }
        #expect(FileManager.default.fileExists(atPath: directory.appendingPathComponent("notes.txt").path))
    }
}
