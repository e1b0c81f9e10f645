import Foundation
import WarmCache
import WarmCacheBuilder
import WarmCacheTestSupport
@testable import WarmCacheUpdates
import XCTest

/// `pull` and the rest of the tool agree: a pulled bundle verifies clean, `pull` refuses a
/// folder holding other files as `warm` does, a failed first pull leaves nothing, a full disk is
/// one line naming the local folder, and requests say which version asks.
final class PulledBundleTests: XCTestCase {
    private let key = ["--public-key", TestKeys.publisher.publicKey.base64]

    private func errorLines(_ output: WarmCacheCLI.Output) -> [String] {
        output.stderr.split(separator: "\n").map(String.init).filter { $0.hasPrefix("error: ") }
    }

    /// Files below `folder`, the updater's lock aside.
    private func files(_ folder: URL) -> [String] {
        fileSnapshot(of: folder).keys.sorted()
    }

    func testAPulledBundleVerifiesCleanAcrossUpdates() async throws {
        var published = try PublishedBundle(sources: 6)
        let server = try await FixtureServer.start()
        try published.serve(on: server)
        let base = server.url("/pub/Images.warmcache/").absoluteString
        let local = temporaryUpdateDirectory()
        let first = try await WarmCacheCLI.run(["pull", base, local.path] + key)
        XCTAssertEqual(first.status, 0, "\(first)")
        // A new release: the blobs of the one it replaces stay for readers opened before it.
        try published.change([0, 1, 2])
        try published.serve(on: server)
        let second = try await WarmCacheCLI.run(["pull", base, local.path] + key)
        XCTAssertEqual(second.status, 0, "\(second)")

        let report = try BundleVerifier(bundleURL: local).verify()
        XCTAssertTrue(report.isValid, "\(report.problems)")
        XCTAssertEqual(report.warnings.map(\.description), [], "blobs kept on purpose are no orphans")
        let verify = try await WarmCacheCLI.run(["verify", local.path] + key)
        XCTAssertEqual(verify.status, 0, "\(verify)")
        XCTAssertTrue(verify.output.contains("0 warnings"), "\(verify)")
        // The kept blobs are really there (6 of the replaced release), and go with the next update.
        let blobs = (try FileManager.default.subpathsOfDirectory(atPath: local.appendingPathComponent("objects").path))
            .filter { $0.hasSuffix(".jpg") }
        XCTAssertEqual(blobs.count, 12 + 6)
        try await server.shutdown()
    }

    func testPullRefusesAFolderHoldingOtherFilesAsWarmDoes() async throws {
        let published = try PublishedBundle(sources: 2)
        let server = try await FixtureServer.start()
        try published.serve(on: server)
        let folder = temporaryUpdateDirectory()
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try Data("mine".utf8).write(to: folder.appendingPathComponent("notes.txt"))

        let pull = try await WarmCacheCLI.run(["pull", server.url("/pub/Images.warmcache/").absoluteString, folder.path] + key)
        XCTAssertEqual(pull.status, 1, "\(pull)")
        XCTAssertEqual(errorLines(pull).count, 1, "\(pull)")
        XCTAssertTrue(pull.stderr.contains("\(folder.path): it exists and is not a WarmCache bundle")
                      && pull.stderr.contains("notes.txt"), "\(pull)")
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: folder.path), ["notes.txt"])
        XCTAssertEqual(server.totalRequestCount, 0, "refused before any request")

        // warm refuses the same folder in the same words.
        let library = try XCTUnwrap(ObjectStore.refusal(toWriteBundleAt: folder.path))
        XCTAssertTrue(pull.stderr.contains(library), "\(pull)")
        try await server.shutdown()
    }

    func testAFailedFirstPullLeavesNothingBehind() async throws {
        let server = try await FixtureServer.start()
        // A host that answers every file with a web page.
        server.setRoute("/pub/Images.warmcache/index.sqlite", .html())
        let base = server.url("/pub/Images.warmcache/").absoluteString

        let absent = temporaryUpdateDirectory()
        let created = try await WarmCacheCLI.run(["pull", base, absent.path, "--insecure-unsigned"])
        XCTAssertEqual(created.status, 5, "\(created)")
        XCTAssertFalse(FileManager.default.fileExists(atPath: absent.path), "\(files(absent))")

        let empty = temporaryUpdateDirectory()
        try FileManager.default.createDirectory(at: empty, withIntermediateDirectories: true)
        let existing = try await WarmCacheCLI.run(["pull", base, empty.path, "--insecure-unsigned"])
        XCTAssertEqual(existing.status, 5, "\(existing)")
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: empty.path), [])
        try await server.shutdown()
    }

    func testRequestsCarryTheVersion() async throws {
        let published = try PublishedBundle(sources: 1)
        let server = try await FixtureServer.start()
        try published.serve(on: server)
        let pull = try await WarmCacheCLI.run(["pull", server.url("/pub/Images.warmcache/").absoluteString,
                                               temporaryUpdateDirectory().path] + key)
        XCTAssertEqual(pull.status, 0, "\(pull)")
        for path in ["statement.json", "index.sqlite"] {
            let agent = server.requests(for: "/pub/Images.warmcache/" + path).first?.header("User-Agent")
            XCTAssertEqual(agent, "WarmCache/\(WarmCacheVersion.current)", path)
        }
        try await server.shutdown()
    }

    func testPullOntoAFullDiskNamesTheLocalFolderAndLeavesNothing() async throws {
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("wc-full-\(UUID().uuidString)")
        let disk: SmallDisk
        do {
            disk = try SmallDisk.mount(at: scratch.appendingPathComponent("disk"), size: "2m")
        } catch let unavailable as SmallDisk.Unavailable {
            throw XCTSkip("no small disk to fill: \(unavailable)")
        }
        defer {
            disk.unmount()
            try? FileManager.default.removeItem(at: scratch)
        }
        var published = try PublishedBundle(sources: 16, blobSize: 20_000)
        let server = try await FixtureServer.start()
        try published.serve(on: server)
        let base = server.url("/pub/Images.warmcache/").absoluteString
        let local = disk.url.appendingPathComponent("Images.warmcache")

        // A first pull that does not fit leaves no folder.
        let filler = try disk.fill(leaving: 200_000)
        let first = try await WarmCacheCLI.run(["pull", base, local.path] + key)
        XCTAssertEqual(first.status, 1, "\(first)")
        XCTAssertEqual(errorLines(first).count, 1, "\(first)")
        XCTAssertTrue(first.stderr.contains("out of disk space") && first.stderr.contains(local.path)
                      && first.stderr.contains("roughly"), "\(first)")
        XCTAssertFalse(first.stderr.contains("http://"), "names the local folder, not the URL: \(first)")
        XCTAssertFalse(FileManager.default.fileExists(atPath: local.path), "\(files(local))")

        // An update that does not fit leaves the installed version exactly as it was.
        try FileManager.default.removeItem(at: filler)
        let installed = try await WarmCacheCLI.run(["pull", base, local.path] + key)
        XCTAssertEqual(installed.status, 0, "\(installed)")
        let before = fileSnapshot(of: local)
        try published.change(0..<16)
        try published.serve(on: server)
        try disk.fill(leaving: 200_000)
        let update = try await WarmCacheCLI.run(["pull", base, local.path] + key)
        XCTAssertEqual(update.status, 1, "\(update)")
        XCTAssertEqual(errorLines(update).count, 1, "\(update)")
        XCTAssertTrue(update.stderr.contains("out of disk space") && update.stderr.contains(local.path), "\(update)")
        XCTAssertEqual(fileSnapshot(of: local), before, "staged files left, or the bundle changed")
        try await server.shutdown()
    }
}
