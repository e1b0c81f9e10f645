import Foundation
import Testing
import WarmCache
import WarmCacheBuilder
import WarmCacheTestSupport
@testable import WarmCacheUpdates

@Suite("Over-the-air updates from a loopback server")
struct BundleUpdaterTests {
    static let prefix = "/pub/Images.warmcache/"

    func updater(_ server: FixtureServer, into directory: URL,
                 _ configuration: BundleUpdater.Configuration = .init()) throws -> BundleUpdater {
        try makeUpdater(server.url(Self.prefix), into: directory, configuration)
    }

    func blobBytes(in directory: URL, source index: Int, width: Int) throws -> Data? {
        let bundle = try CacheBundle(contentsOf: directory)
        let key = VariantKey(source: PublishedBundle.source(index),
                             spec: VariantSpec(width: width, height: nil, format: .jpeg))
        return try bundle.image(for: key)?.data()
    }

    @Test("a first pull downloads and verifies everything; the directory is then a plain bundle")
    func firstPull() async throws {
        let published = try PublishedBundle(sources: 30)
        let server = try await FixtureServer.start()
        try published.serve(on: server)
        let local = temporaryUpdateDirectory()
        let result = try await updater(server, into: local).update()
        try await server.shutdown()

        #expect(result.outcome == .updated)
        #expect(result.blobsDownloaded == 60 && result.blobBytesDownloaded == published.blobBytes)
        #expect(result.requests == 62, "the statement, the index and 60 blobs")
        #expect(result.version == 1 && result.keyID == TestKeys.publisher.keyID && result.expiresAt != nil)
        #expect(try Data(contentsOf: local.appendingPathComponent("statement.json")) == Data(contentsOf: published.statementURL))
        let original = try published.body(of: published.variants(of: 7)[1])
        #expect(try blobBytes(in: local, source: 7, width: 200) == Data(original))
        #expect(try Data(contentsOf: local.appendingPathComponent("index.sqlite")) == Data(contentsOf: published.indexURL))
    }

    @Test("an unchanged bundle costs one conditional request, for the statement, and no body bytes")
    func unchanged() async throws {
        let published = try PublishedBundle(sources: 10)
        let server = try await FixtureServer.start()
        try published.serve(on: server)
        let local = temporaryUpdateDirectory()
        let updater = try updater(server, into: local)
        _ = try await updater.update()
        server.resetStatistics()
        let again = try await updater.update()
        #expect(again.outcome == .upToDate && again.requests == 1 && again.bytesDownloaded == 0)
        #expect(again.version == 1)
        #expect(server.totalRequestCount == 1 && server.bodyBytesSent == 0)
        let request = try #require(server.requests(for: Self.prefix + "statement.json").first)
        #expect(request.header("If-None-Match") != nil)
        try await server.shutdown()
    }

    @Test("a server with only Last-Modified is revalidated with If-Modified-Since")
    func lastModifiedOnly() async throws {
        var published = try PublishedBundle(sources: 6)
        let server = try await FixtureServer.start()
        let published1 = Date(timeIntervalSince1970: 1_700_000_000)
        try published.serve(on: server, lastModified: published1)
        let local = temporaryUpdateDirectory()
        let updater = try updater(server, into: local)
        _ = try await updater.update()

        server.resetStatistics()
        let again = try await updater.update()
        #expect(again.outcome == .upToDate && again.requests == 1 && server.bodyBytesSent == 0)
        let request = try #require(server.requests(for: Self.prefix + "statement.json").first)
        #expect(request.header("If-None-Match") == nil && request.header("If-Modified-Since") != nil)

        try published.change([2])
        try published.serve(on: server, lastModified: published1.addingTimeInterval(3600))
        let changed = try await updater.update()
        #expect(changed.outcome == .updated && changed.blobsDownloaded == 2)
        try await server.shutdown()
    }

    /// The figure README states: 2,000 sources (4,000 blobs), 1 % of the sources re-baked.
    @Test("after 1 % of 2,000 sources changed, an update transfers the index plus those sources' blobs")
    func onePercentOfTwoThousand() async throws {
        var published = try PublishedBundle(sources: 2_000)
        let server = try await FixtureServer.start()
        try published.serve(on: server)
        let local = temporaryUpdateDirectory()
        // Version 1 arrives as in an app that ships it: copied from the seed, verified, no blob requests.
        let first = try await self.updater(server, into: local, .init(seedBundles: [published.directory])).update()
        #expect(first.blobsReused == 4_000 && first.requests == 2)
        let updater = try updater(server, into: local)

        let changed = Array(stride(from: 0, to: 2_000, by: 100))  // 20 sources = 1 %
        try published.change(changed)
        try published.serve(on: server)
        server.resetStatistics()
        let second = try await updater.update()
        let indexBytes = try Data(contentsOf: published.indexURL).count
        let statementBytes = try Data(contentsOf: published.statementURL).count
        let changedBytes = changed.flatMap { published.variants(of: $0) }.map(\.byteCount).reduce(0, +)
        #expect(second.outcome == .updated)
        #expect(second.blobsDownloaded == 40 && second.blobBytesDownloaded == changedBytes)
        #expect(second.indexBytes == indexBytes && second.statementBytes == statementBytes && second.requests == 42)
        #expect(server.bodyBytesSent == statementBytes + indexBytes + changedBytes)
        let share = String(format: "%.2f", 100 * Double(changedBytes) / Double(published.blobBytes))
        print("[figures] 2,000 sources, 4,000 blobs (\(published.blobBytes) bytes); 1 % re-baked: "
            + "\(server.totalRequestCount) requests, \(server.bodyBytesSent) bytes sent = statement \(statementBytes) + "
            + "index \(indexBytes) + \(second.blobsDownloaded) blobs \(changedBytes) (\(share) % of blob bytes)")
        server.resetStatistics()
        let third = try await updater.update()
        #expect(third.outcome == .upToDate && server.totalRequestCount == 1 && server.bodyBytesSent == 0)
        try await server.shutdown()
    }

    @Test("superseded blobs are removed only when neither the new index nor the replaced one lists them")
    func garbageCollection() async throws {
        var published = try PublishedBundle(sources: 5)
        let server = try await FixtureServer.start()
        try published.serve(on: server)
        let local = temporaryUpdateDirectory()
        let updater = try updater(server, into: local)
        _ = try await updater.update()
        let generation1 = published.variants(of: 0).map(\.blobSHA256)

        // A reader opened before an update (an app mid-scroll) keeps answering from the version
        // it opened, with every image readable, after the switch.
        let openBefore = try CacheBundle(contentsOf: local)
        try published.change([0])
        try published.serve(on: server)
        let second = try await updater.update()
        // Generation 1's blobs of source 0 stay: a reader opened before the switch may still use them.
        #expect(second.blobsRemoved == 0)
        let seenBefore = try openBefore.images(for: PublishedBundle.source(0))
        #expect(seenBefore.map(\.sha256).sorted() == generation1.sorted())
        for image in seenBefore {
            #expect(try image.data().count == image.byteCount)
        }
        let seenAfter = try CacheBundle(contentsOf: local).images(for: PublishedBundle.source(0))
        #expect(Set(seenAfter.map(\.sha256)).isDisjoint(with: generation1), "a new reader sees the new version")
        let path = { (sha: String) in local.appendingPathComponent(BundleFormat.objectPath(sha256: sha, format: .jpeg)).path }
        #expect(generation1.allSatisfy { FileManager.default.fileExists(atPath: path($0)) })

        try published.change([1])
        try published.serve(on: server)
        let third = try await updater.update()
        #expect(third.blobsRemoved == 2)
        #expect(generation1.allSatisfy { !FileManager.default.fileExists(atPath: path($0)) })
        let bundle = try CacheBundle(contentsOf: local)
        for image in try (0..<5).flatMap({ try bundle.images(for: PublishedBundle.source($0)) }) {
            #expect(FileManager.default.fileExists(atPath: image.fileURL.path))
        }
        try await server.shutdown()
    }

    @Test("an interrupted update leaves the previous version and resumes without re-downloading verified blobs")
    func interruptedUpdateResumes() async throws {
        var published = try PublishedBundle(sources: 20)
        let server = try await FixtureServer.start()
        try published.serve(on: server)
        let local = temporaryUpdateDirectory()
        let updater = try updater(server, into: local, .init(maximumConcurrentDownloads: 1))
        _ = try await updater.update()
        let before = try Data(contentsOf: local.appendingPathComponent("index.sqlite"))

        try published.change(0..<5)
        try published.serve(on: server)
        // The network drops on the last blob (downloads go in hash order, one at a time here).
        let changed = (0..<5).flatMap { published.variants(of: $0) }.sorted { $0.blobSHA256 < $1.blobSHA256 }
        let last = try #require(changed.last)
        server.setRoute(published.blobPath(of: last), .truncated(afterBytes: 100, .image(Array(repeating: 1, count: last.byteCount))))
        await #expect(throws: BundleUpdateError.self) { try await updater.update() }
        #expect(try Data(contentsOf: local.appendingPathComponent("index.sqlite")) == before)
        #expect(try blobBytes(in: local, source: 0, width: 100) != nil)

        server.removeRoute(published.blobPath(of: last))
        let resumed = try await updater.update()
        #expect(resumed.outcome == .updated && resumed.blobsDownloaded == 1 && resumed.blobsReused == 39)
        try await server.shutdown()
    }

    @Test("progress reports files and bytes; cancelling stops the update and keeps the previous version")
    func progressAndCancellation() async throws {
        var published = try PublishedBundle(sources: 8)
        let server = try await FixtureServer.start()
        try published.serve(on: server)
        let local = temporaryUpdateDirectory()
        let updater = try updater(server, into: local, .init(maximumConcurrentDownloads: 2))
        let (progress, task) = updater.start()
        var updates: [UpdateProgress] = []
        for await update in progress { updates.append(update) }
        let result = try await task.value
        let final = try #require(updates.last { $0.phase == .downloadingBlobs })
        #expect(final.filesDone == 16 && final.filesTotal == 16 && final.bytesDone == result.blobBytesDownloaded)
        #expect(updates.first?.phase == .checkingIndex && updates.last?.phase == .installing)

        try published.change(0..<8)
        try published.serve(on: server)
        for variant in published.contents.variants {
            server.setRoute(published.blobPath(of: variant),
                            .trickled(chunkSize: 64, interval: 0.2, .image(try published.body(of: variant))))
        }
        let before = try Data(contentsOf: local.appendingPathComponent("index.sqlite"))
        let (slowProgress, slowTask) = updater.start()
        for await update in slowProgress where update.phase == .downloadingBlobs {
            slowTask.cancel()
            break
        }
        await #expect(throws: CancellationError.self) { try await slowTask.value }
        #expect(try Data(contentsOf: local.appendingPathComponent("index.sqlite")) == before)
        try await server.shutdown()
    }

    @Test("downloads stay within the configured concurrency")
    func boundedConcurrency() async throws {
        let published = try PublishedBundle(sources: 40)
        let server = try await FixtureServer.start()
        try published.serve(on: server)
        for variant in published.contents.variants {
            server.setRoute(published.blobPath(of: variant), .delayed(seconds: 0.02, .image(try published.body(of: variant))))
        }
        let result = try await updater(server, into: temporaryUpdateDirectory(),
                                       .init(maximumConcurrentDownloads: 3)).update()
        #expect(result.blobsDownloaded == 80)
        #expect(server.maxConcurrentRequests <= 3)
        try await server.shutdown()
    }

    @Test("blobs found in a seed bundle (the one shipped in the app) are copied, not downloaded")
    func seedBundle() async throws {
        let published = try PublishedBundle(sources: 10)
        let server = try await FixtureServer.start()
        try published.serve(on: server)
        let result = try await updater(server, into: temporaryUpdateDirectory(),
                                       .init(seedBundles: [published.directory])).update()
        #expect(result.outcome == .updated && result.blobsDownloaded == 0 && result.blobsReused == 20)
        #expect(server.totalRequestCount == 2, "the statement and the index")
        try await server.shutdown()
    }

    @Test("one update per directory at a time")
    func busy() async throws {
        let published = try PublishedBundle(sources: 2)
        let server = try await FixtureServer.start()
        try published.serve(on: server)
        server.setRoute(Self.prefix + "statement.json",
                        .delayed(seconds: 2, .image(Array(try Data(contentsOf: published.statementURL)))))
        let local = temporaryUpdateDirectory()
        let slow = try updater(server, into: local).start()
        while server.totalRequestCount == 0 { try await Task.sleep(nanoseconds: 10_000_000) }
        do {
            _ = try await updater(server, into: local).update()
            Issue.record("a second update ran")
        } catch let error as BundleUpdateError {
            #expect(error.kind == .busy)
        }
        _ = try await slow.task.value
        try await server.shutdown()
    }
}
