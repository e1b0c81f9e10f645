import CSQLite
import Foundation
import Testing
import WarmCache
@testable import WarmCacheBuilder

@Suite struct BundleMergerTests {
    static let fingerprint = String(repeating: "ab", count: 32)

    /// Sources `s0…s(n-1)` split over `count` shards as `warm --shard` would, each part written
    /// with the writer; returns the parts and the whole bundle written in one go.
    static func shardedParts(_ directory: URL, sources: Int, count: Int) throws -> (parts: [URL], whole: URL) {
        let names = (0..<sources).map { "https://cdn.example.com/s\($0).jpg" }
        let whole = directory.appendingPathComponent("whole.warmcache")
        try BundleFixtures.write(to: whole, sources: names, fingerprint: fingerprint)
        let parts = try (1...count).map { index in
            let shard = try Shard(index: index, count: count)
            let url = directory.appendingPathComponent("part-\(index).warmcache")
            try BundleFixtures.write(to: url, sources: names.filter { shard.contains(SourceIdentifier($0)) },
                                     fingerprint: fingerprint, shard: shard)
            return url
        }
        return (parts, whole)
    }

    @Test func shardsMergeIntoExactlyTheWholeBundleWithLinkedBlobs() throws {
        let directory = try BundleFixtures.temporaryDirectory("merge")
        defer { try? FileManager.default.removeItem(at: directory) }
        let (parts, whole) = try Self.shardedParts(directory, sources: 40, count: 3)
        let output = directory.appendingPathComponent("merged.warmcache")

        let summary = try BundleMerger(parts: parts, output: output).merge()
        #expect(summary.sources == 40 && summary.variants == 240 && summary.blobs == 240 && summary.blobsAdded == 240)
        #expect(try BundleFixtures.snapshot(output) == BundleFixtures.snapshot(whole))
        #expect(try BundleVerifier(bundleURL: output).verify().isValid)

        // Hard links: the merged blob is the part's file.
        let bundle = try CacheBundle(contentsOf: output)
        let image = try #require(try bundle.images(for: SourceIdentifier("https://cdn.example.com/s0.jpg")).first)
        let links = try FileManager.default.attributesOfItem(atPath: image.fileURL.path)[.referenceCount] as? NSNumber
        #expect(links?.intValue == 2)

        // Merging again into the same output changes nothing and adds nothing.
        let again = try BundleMerger(parts: parts, output: output).merge()
        #expect(again.blobsAdded == 0 && again.blobsRemoved == 0)
        #expect(try BundleFixtures.snapshot(output) == BundleFixtures.snapshot(whole))
    }

    /// A merge cancelled (the CLI's Ctrl-C) once it has staged a part publishes nothing and
    /// removes what it wrote: the output is exactly as it was, with no staging folder or blob.
    @Test func aCancelledMergeLeavesTheOutputAsItWas() throws {
        let directory = try BundleFixtures.temporaryDirectory("merge-cancel")
        defer { try? FileManager.default.removeItem(at: directory) }
        let output = directory.appendingPathComponent("merged.warmcache")
        let earlier = try Self.shardedParts(directory.appendingPathComponent("earlier"), sources: 6, count: 2)
        try BundleMerger(parts: earlier.parts, output: output).merge()
        let before = try BundleFixtures.snapshot(output)
        let (parts, _) = try Self.shardedParts(directory, sources: 40, count: 3)

        let questions = Locked(0)
        var merger = BundleMerger(parts: parts, output: output)
        merger.isCancelled = { questions.withLock { $0 += 1; return $0 > 2 } }
        do {
            try merger.merge()
            Issue.record("the merge was not cancelled")
        } catch {
            #expect(error.kind == .interrupted && error.message.contains("unchanged"), "\(error)")
        }
        #expect(try BundleFixtures.snapshot(output) == before)
        let entries = try FileManager.default.contentsOfDirectory(atPath: output.path).sorted()
        #expect(entries == ["index.sqlite", "objects"], "\(entries)")
        let verification = try BundleVerifier(bundleURL: output).verify()
        #expect(verification.isValid && verification.warnings.isEmpty, "\(verification.warnings)")
    }

    /// Parts on another file system (here tmpfs, when the machine has one) cannot be hard-linked:
    /// their blobs are copied, and the merged bundle is the same.
    @Test func partsOnAnotherFileSystemAreCopied() throws {
        let memory = URL(fileURLWithPath: "/dev/shm")
        let directory = try BundleFixtures.temporaryDirectory("merge-copy")
        defer { try? FileManager.default.removeItem(at: directory) }
        func device(_ url: URL) -> Int? {
            (try? FileManager.default.attributesOfFileSystem(forPath: url.path))?[.systemNumber] as? Int
        }
        let partsDirectory: URL
        if let shm = device(memory), shm != device(directory) {
            partsDirectory = memory.appendingPathComponent("warm-cache-merge-\(UUID().uuidString)")
        } else {
            partsDirectory = directory.appendingPathComponent("parts")  // no second file system here
        }
        try FileManager.default.createDirectory(at: partsDirectory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: partsDirectory) }
        let (parts, whole) = try Self.shardedParts(partsDirectory, sources: 12, count: 2)
        let output = directory.appendingPathComponent("merged.warmcache")

        let summary = try BundleMerger(parts: parts, output: output).merge()
        #expect(summary.sources == 12 && summary.blobsAdded == 72)
        #expect(try BundleFixtures.snapshot(output) == BundleFixtures.snapshot(whole))
        #expect(try BundleVerifier(bundleURL: output).verify().isValid)
        if partsDirectory.path.hasPrefix(memory.path) {
            let bundle = try CacheBundle(contentsOf: output)
            let image = try #require(try bundle.images(for: SourceIdentifier("https://cdn.example.com/s0.jpg")).first)
            let links = try FileManager.default.attributesOfItem(atPath: image.fileURL.path)[.referenceCount]
            #expect((links as? NSNumber)?.intValue == 1, "a copy, not a link")
        }
    }

    @Test func identicalRowsInTwoPartsAreDeduplicated() throws {
        let directory = try BundleFixtures.temporaryDirectory("merge-dup")
        defer { try? FileManager.default.removeItem(at: directory) }
        let a = directory.appendingPathComponent("a.warmcache"), b = directory.appendingPathComponent("b.warmcache")
        try BundleFixtures.write(to: a, sources: ["https://x.test/1", "https://x.test/2"], fingerprint: Self.fingerprint)
        try BundleFixtures.write(to: b, sources: ["https://x.test/2", "https://x.test/3"], fingerprint: Self.fingerprint)
        let summary = try BundleMerger(parts: [a, b], output: directory.appendingPathComponent("m.warmcache")).merge()
        #expect(summary.sources == 3 && summary.variants == 18 && summary.blobs == 18)
    }

    @Test func aKeyWithTwoDifferentImagesNamesBothParts() throws {
        let directory = try BundleFixtures.temporaryDirectory("merge-conflict")
        defer { try? FileManager.default.removeItem(at: directory) }
        let a = directory.appendingPathComponent("a.warmcache"), b = directory.appendingPathComponent("b.warmcache")
        try BundleFixtures.write(to: a, sources: ["https://x.test/1"], fingerprint: Self.fingerprint)
        // Same source and original, different encoded bytes (another encoder version, say).
        let written = try BundleFixtures.write(to: b, sources: ["https://x.test/1"], fingerprint: Self.fingerprint)
        var contents = written.contents
        let writer = BundleWriter(bundleURL: b, generator: "warm-cache tests")
        try writer.prepare()
        let blob = try writer.storeBlob(Data("other bytes".utf8), format: contents.variants[0].key.spec.format)
        contents.variants[0].blobSHA256 = blob.sha256
        contents.variants[0].byteCount = blob.byteCount
        try writer.commit(contents)

        let error = try #require(throws: BundleMergeError.self) {
            try BundleMerger(parts: [a, b], output: directory.appendingPathComponent("m.warmcache")).merge()
        }
        #expect(error.kind == .incompatibleParts)
        #expect(error.message.contains(a.path) && error.message.contains(b.path), "\(error)")
        #expect(error.message.contains(contents.variants[0].key.rawValue))
        #expect(!FileManager.default.fileExists(atPath: directory.appendingPathComponent("m.warmcache").path))
    }

    @Test func aSourceWithTwoDifferentOriginalsNamesBothPartsAndWritesNothing() throws {
        let directory = try BundleFixtures.temporaryDirectory("merge-source-conflict")
        defer { try? FileManager.default.removeItem(at: directory) }
        let a = directory.appendingPathComponent("a.warmcache"), b = directory.appendingPathComponent("b.warmcache")
        let c = directory.appendingPathComponent("c.warmcache")
        try BundleFixtures.write(to: a, sources: ["https://x.test/1", "https://x.test/2"], fingerprint: Self.fingerprint)
        try BundleFixtures.write(to: b, sources: ["https://x.test/3"], fingerprint: Self.fingerprint)
        // Another original behind the same URL (the image changed between the two runs).
        try BundleFixtures.write(to: c, sources: ["https://x.test/2"], salt: "changed", fingerprint: Self.fingerprint)

        let output = directory.appendingPathComponent("m.warmcache")
        let error = try #require(throws: BundleMergeError.self) { try BundleMerger(parts: [a, b, c], output: output).merge() }
        #expect(error.kind == .incompatibleParts)
        #expect(error.message.contains("source https://x.test/2 differs between \(a.path)"), "\(error)")
        #expect(error.message.contains(c.path) && !error.message.contains(b.path), "\(error)")
        #expect(!FileManager.default.fileExists(atPath: output.path))
    }

    @Test func partsOfDifferentManifestsOrVersionsAreRefusedNamingBoth() throws {
        let directory = try BundleFixtures.temporaryDirectory("merge-mismatch")
        defer { try? FileManager.default.removeItem(at: directory) }
        let a = directory.appendingPathComponent("a.warmcache")
        try BundleFixtures.write(to: a, sources: ["https://x.test/1"], fingerprint: Self.fingerprint)
        let other = directory.appendingPathComponent("other.warmcache")
        try BundleFixtures.write(to: other, sources: ["https://x.test/2"], fingerprint: String(repeating: "cd", count: 32))
        let newer = directory.appendingPathComponent("newer.warmcache")
        try BundleFixtures.write(to: newer, sources: ["https://x.test/3"], fingerprint: Self.fingerprint)
        try Self.setMeta(newer, "format_minor", "9")
        let unmarked = directory.appendingPathComponent("unmarked.warmcache")
        try BundleFixtures.write(to: unmarked, sources: ["https://x.test/4"])
        let tool = directory.appendingPathComponent("tool.warmcache")
        try BundleFixtures.write(to: tool, sources: ["https://x.test/5"], fingerprint: Self.fingerprint,
                                 generator: "warm-cache 9.9.9")

        let output = directory.appendingPathComponent("m.warmcache")
        for (part, words) in [(other, "different manifests"), (newer, "format"), (unmarked, "no manifest fingerprint"),
                              (tool, "warm-cache 9.9.9")] {
            let error = try #require(throws: BundleMergeError.self) { try BundleMerger(parts: [a, part], output: output).merge() }
            #expect(error.kind == .incompatibleParts)
            #expect(error.message.contains(part.path) && error.message.contains(words), "\(error)")
            if part != unmarked { #expect(error.message.contains(a.path), "\(error)") }
        }
        #expect(!FileManager.default.fileExists(atPath: output.path))
    }

    @Test func aMissingOrRepeatedShardIsAnError() throws {
        let directory = try BundleFixtures.temporaryDirectory("merge-shards")
        defer { try? FileManager.default.removeItem(at: directory) }
        let (parts, _) = try Self.shardedParts(directory, sources: 30, count: 3)
        let output = directory.appendingPathComponent("m.warmcache")

        let missing = try #require(throws: BundleMergeError.self) {
            try BundleMerger(parts: [parts[0], parts[2]], output: output).merge()
        }
        #expect(missing.message.contains("2/3 missing") && missing.message.contains("--allow-missing-shards"))
        let merged = try BundleMerger(parts: [parts[0], parts[2]], output: output, allowMissingShards: true).merge()
        #expect(merged.sources < 30)

        let copy = directory.appendingPathComponent("copy.warmcache")
        try FileManager.default.copyItem(at: parts[1], to: copy)
        let repeated = try #require(throws: BundleMergeError.self) {
            try BundleMerger(parts: parts + [copy], output: output).merge()
        }
        #expect(repeated.message.contains("both shard 2/3") && repeated.message.contains(copy.path))
    }

    @Test func aFailedMergeLeavesThePreviousBundleAsItWas() throws {
        let directory = try BundleFixtures.temporaryDirectory("merge-atomic")
        defer { try? FileManager.default.removeItem(at: directory) }
        let (parts, _) = try Self.shardedParts(directory, sources: 20, count: 2)
        let output = directory.appendingPathComponent("m.warmcache")
        try BundleMerger(parts: parts, output: output).merge()
        let before = try BundleFixtures.snapshot(output)

        // A part whose index lists a blob it does not have: found while linking, after others were added.
        let broken = directory.appendingPathComponent("broken.warmcache")
        try BundleFixtures.write(to: broken, sources: ["https://late.test/a", "https://late.test/b"],
                                 fingerprint: Self.fingerprint)
        let objects = broken.appendingPathComponent("objects")
        let fanouts = try FileManager.default.contentsOfDirectory(atPath: objects.path).sorted()
        try FileManager.default.removeItem(at: objects.appendingPathComponent(fanouts.last!))
        let error = try #require(throws: BundleMergeError.self) {
            try BundleMerger(parts: parts + [broken], output: output).merge()
        }
        #expect(error.message.contains(broken.path), "\(error)")
        #expect(try BundleFixtures.snapshot(output) == before)
    }

    @Test func reportsMergeTotalsSourcesAndStatus() throws {
        let directory = try BundleFixtures.temporaryDirectory("merge-reports")
        defer { try? FileManager.default.removeItem(at: directory) }
        func report(_ name: String, status: String, seconds: Double, sources: [String], failed: Int) throws -> URL {
            let list = sources.map { "{\"identifier\": \"\($0)\", \"status\": \"fetched\", \"future\": true}" }
            let text = """
                {"manifest": "/m.yml", "output": "/parts/\(name)", "status": "\(status)", "seconds": \(seconds),
                 "totals": {"sources": \(sources.count), "sourcesFailed": \(failed), "bytesIn": 1000},
                 "sources": [\(list.joined(separator: ","))], "warnings": ["manifest warning", "w-\(name)"],
                 "reportVersion": 1, "removedSources": ["https://gone"], "newField": {"count": 2}}
                """
            let url = directory.appendingPathComponent("\(name).json")
            try Data(text.utf8).write(to: url)
            return url
        }
        let files = [try report("b", status: "ok", seconds: 2.5, sources: ["https://b", "https://d"], failed: 0),
                     try report("a", status: "partial", seconds: 4, sources: ["https://a", "https://c"], failed: 1)]
        let data = try ReportMerger.merge(files, output: URL(fileURLWithPath: "/out/Images.warmcache"))
        let merged = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        #expect(merged["status"] as? String == "partial")
        #expect(merged["output"] as? String == "/out/Images.warmcache")
        #expect((merged["seconds"] as? NSNumber)?.doubleValue == 4)
        let totals = try #require(merged["totals"] as? [String: Any])
        #expect((totals["sources"] as? NSNumber)?.intValue == 4 && (totals["sourcesFailed"] as? NSNumber)?.intValue == 1)
        #expect((totals["bytesIn"] as? NSNumber)?.intValue == 2000)
        let sources = try #require(merged["sources"] as? [[String: Any]])
        #expect(sources.compactMap { $0["identifier"] as? String } == ["https://a", "https://b", "https://c", "https://d"])
        #expect(sources.allSatisfy { ($0["future"] as? Bool) == true })
        #expect(merged["warnings"] as? [String] == ["manifest warning", "w-b", "w-a"])
        #expect((merged["reportVersion"] as? NSNumber)?.intValue == 1)
        #expect(merged["removedSources"] as? [String] == ["https://gone"])
        #expect(((merged["newField"] as? [String: Any])?["count"] as? NSNumber)?.intValue == 4)

        let bogus = directory.appendingPathComponent("bogus.json")
        try Data("{\"hello\": 1}".utf8).write(to: bogus)
        let error = try #require(throws: BundleMergeError.self) { try ReportMerger.merge([files[0], bogus], output: bogus) }
        #expect(error.message.contains(bogus.path))
    }

    static func setMeta(_ bundle: URL, _ key: String, _ value: String) throws {
        var db: OpaquePointer?
        guard sqlite3_open(bundle.appendingPathComponent("index.sqlite").path, &db) == SQLITE_OK else {
            throw BundleMergeError(.fileSystem, "open")
        }
        defer { sqlite3_close(db) }
        guard sqlite3_exec(db, "UPDATE meta SET value = '\(value)' WHERE key = '\(key)'", nil, nil, nil) == SQLITE_OK else {
            throw BundleMergeError(.fileSystem, "update")
        }
    }
}
