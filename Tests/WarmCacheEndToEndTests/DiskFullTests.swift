import Foundation
import WarmCache
import WarmCacheBuilder
import WarmCacheTestSupport
import XCTest

/// A disk that runs out of space (or inodes) during `warm` or `merge`: one plain line naming the disk and
/// roughly what the run needs, the previous bundle exactly as it was, and nothing the failed run
/// wrote left behind. Run on a small tmpfs the test mounts (root only; skipped elsewhere).
final class DiskFullTests: XCTestCase {
    /// Files below `folder` (relative path → size), the bundle as a reader and `ls -R` see it.
    private func listing(_ folder: URL) -> [String: Int] {
        var files: [String: Int] = [:]
        let base = folder.standardizedFileURL.path + "/"
        guard let enumerator = FileManager.default.enumerator(at: folder, includingPropertiesForKeys: nil) else { return [:] }
        for case let url as URL in enumerator {
            let path = url.standardizedFileURL.path
            files[String(path.dropFirst(base.count))] = ObjectStore.fileSize(atPath: path)
        }
        return files
    }

    private func mount(_ scratch: Scratch, size: String, inodes: Int? = nil) throws -> SmallDisk {
        do {
            return try SmallDisk.mount(at: scratch.path("disk"), size: size, inodes: inodes)
        } catch let unavailable as SmallDisk.Unavailable {
            throw XCTSkip("no small disk to fill: \(unavailable)")
        }
    }

    private func errorLines(_ run: CLI.Result) -> [String] {
        run.stderr.split(separator: "\n").map(String.init).filter { $0.hasPrefix("error: ") }
    }

    func testAFullDiskFailsInOneLineKeepsTheBundleAndLeavesNothing() async throws {
        let images = try SourceImages.distinct(24)
        try await withWorld(routes: SourceImages.routes(images, under: "d")) { scratch, server in
            let disk = try mount(scratch, size: "2m")
            defer { disk.unmount() }
            let bundle = disk.url.appendingPathComponent("Images.warmcache")
            let cache = disk.url.appendingPathComponent("cache")
            let urls = (0..<24).map { server.url("/d/\($0)") }
            let arguments = ["warm", "manifest.yml", "-o", bundle.path, "--cache-dir", cache.path, "-q"]

            // The bundle the failed run must leave as it is.
            try scratch.write(Manifests.yaml(urls: Array(urls.prefix(2))), to: "manifest.yml")
            let first = try await CLI.run(arguments, in: scratch.url)
            XCTAssertEqual(first.status, 0, "\(first)")
            let before = listing(bundle)

            // Room for a few sources' originals and variants, not for 24.
            try disk.fill(leaving: 120_000)
            try scratch.write(Manifests.yaml(urls: urls), to: "manifest.yml")
            let full = try await CLI.run(arguments, in: scratch.url)
            XCTAssertEqual(full.status, 1, "\(full)")
            let lines = errorLines(full)
            XCTAssertEqual(lines.count, 1, "one line: \(full)")
            let line = try XCTUnwrap(lines.first)
            XCTAssertTrue(line.contains("out of disk space") && line.contains(disk.url.path), line)
            XCTAssertTrue(line.contains("roughly") && line.contains("is free"), line)
            XCTAssertTrue(line.contains("\(bundle.path) is unchanged"), line)
            for leak in ["SQLite", "malformed", "Error Domain", "NSCocoaErrorDomain", "sources failed"] {
                XCTAssertFalse(full.stderr.contains(leak), "\(leak): \(full)")
            }
            // The previous bundle, file for file; nothing of the failed run in it or in the cache.
            XCTAssertEqual(listing(bundle), before)
            XCTAssertTrue(try BundleVerifier(bundleURL: bundle).verify().warnings.isEmpty)
            let debris = listing(cache).keys.filter { $0.hasSuffix(".part") || $0.hasSuffix(".tmp") }
            XCTAssertEqual(debris, [], "staged downloads left in the cache")

            // The space the failed run took is back: with the filler gone, a manifest that fits warms.
            try FileManager.default.removeItem(at: disk.url.appendingPathComponent("filler"))
            try scratch.write(Manifests.yaml(urls: Array(urls.prefix(6))), to: "manifest.yml")
            let again = try await CLI.run(arguments, in: scratch.url)
            XCTAssertEqual(again.status, 0, "\(again)")
            XCTAssertTrue(try BundleVerifier(bundleURL: bundle).verify().warnings.isEmpty)
        }
    }

    func testRunningOutOfInodesIsSaidAsSuch() async throws {
        let images = try SourceImages.distinct(12)
        try await withWorld(routes: SourceImages.routes(images, under: "i")) { scratch, server in
            let disk = try mount(scratch, size: "20m", inodes: 40)
            defer { disk.unmount() }
            let bundle = disk.url.appendingPathComponent("Images.warmcache")
            let urls = (0..<12).map { server.url("/i/\($0)") }
            try scratch.write(Manifests.yaml(urls: urls), to: "manifest.yml")
            // The cache is elsewhere: the bundle's blobs alone need more files than the disk has.
            let run = try await CLI.run(["warm", "manifest.yml", "-o", bundle.path, "--cache-dir", "cache", "-q"],
                                        in: scratch.url)
            XCTAssertEqual(run.status, 1, "\(run)")
            let lines = errorLines(run)
            XCTAssertEqual(lines.count, 1, "one line: \(run)")
            XCTAssertTrue(lines.first?.contains("no room for more files") == true, "\(run)")
            // No bundle was ever published there: the failed run leaves nothing at all.
            XCTAssertFalse(FileManager.default.fileExists(atPath: bundle.path), "\(listing(bundle))")
        }
    }

    func testAMergeOntoAFullDiskFailsInOneLineAndKeepsTheBundle() async throws {
        let images = try SourceImages.distinct(16)
        try await withWorld(routes: SourceImages.routes(images, under: "m")) { scratch, server in
            let urls = (0..<16).map { server.url("/m/\($0)") }
            try scratch.write(Manifests.yaml(urls: urls), to: "manifest.yml")
            // Two shards on the ordinary disk.
            for index in 1...2 {
                let part = try await CLI.run(["warm", "manifest.yml", "--shard", "\(index)/2", "-q", "--cache-dir", "cache",
                                              "-o", "parts/p\(index).warmcache"], in: scratch.url)
                XCTAssertEqual(part.status, 0, "\(part)")
            }
            let disk = try mount(scratch, size: "2m")
            defer { disk.unmount() }
            let bundle = disk.url.appendingPathComponent("Images.warmcache")
            // A merged bundle of the first part, which the failed merge must leave as it is.
            let first = try await CLI.run(["merge", "-o", bundle.path, "--allow-missing-shards", "parts/p1.warmcache"],
                                          in: scratch.url)
            XCTAssertEqual(first.status, 0, "\(first)")
            let before = listing(bundle)

            try disk.fill(leaving: 40_000)
            let full = try await CLI.run(["merge", "-o", bundle.path, "parts/p1.warmcache", "parts/p2.warmcache"],
                                         in: scratch.url)
            XCTAssertEqual(full.status, 1, "\(full)")
            let lines = errorLines(full)
            XCTAssertEqual(lines.count, 1, "one line: \(full)")
            let line = try XCTUnwrap(lines.first)
            XCTAssertTrue(line.contains("out of disk space") && line.contains(disk.url.path), line)
            for leak in ["SQLite", "malformed", "Error Domain", "NSCocoaErrorDomain"] {
                XCTAssertFalse(full.stderr.contains(leak), "\(leak): \(full)")
            }
            // The merged bundle, file for file: none of the failed merge's blobs or staging is left.
            XCTAssertEqual(listing(bundle), before)
            XCTAssertTrue(try BundleVerifier(bundleURL: bundle).verify().warnings.isEmpty)
        }
    }
}
