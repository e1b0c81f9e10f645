import Foundation
import Testing
import WarmCache
import WarmCacheBuilder
import WarmCacheTestSupport
@testable import WarmCacheUpdates

/// Each case installs version 1 from a well-behaved loopback server, then publishes version 2
/// with one fault: the update must fail with that fault's error and leave version 1 untouched,
/// with nothing new in the local folder. Faults in the index are signed by the publisher's key
/// (a publisher's mistake, or a stolen key): the index's own checks still apply. The attacks a
/// signature stops are in ``SignedUpdateAttackTests``.
@Suite("Hostile update servers")
struct HostileServerTests {
    static let prefix = "/pub/Images.warmcache/"

    struct Setup {
        var published: PublishedBundle
        let server: FixtureServer
        let local: URL
        let installedIndex: Data
    }

    /// Version 1 installed; version 2 (source 0 re-baked) published.
    func setUp() async throws -> Setup {
        var published = try PublishedBundle(sources: 6)
        let server = try await FixtureServer.start()
        try published.serve(on: server)
        let local = temporaryUpdateDirectory()
        _ = try await makeUpdater(server.url(Self.prefix), into: local).update()
        let installed = try Data(contentsOf: local.appendingPathComponent("index.sqlite"))
        try published.change([0])
        try published.serve(on: server)
        return Setup(published: published, server: server, local: local, installedIndex: installed)
    }

    /// Runs the update, expects `kind`, and checks version 1 is intact and readable.
    func expectFailure(_ setup: Setup, configuration: BundleUpdater.Configuration = .init(),
                       sourceLocation: SourceLocation = #_sourceLocation,
                       _ matches: (BundleUpdateError.Kind) -> Bool) async throws {
        let updater = try makeUpdater(setup.server.url(Self.prefix), into: setup.local, configuration)
        let before = fileSnapshot(of: setup.local)
        var resumable = false
        do {
            _ = try await updater.update()
            Issue.record("the update succeeded", sourceLocation: sourceLocation)
        } catch let error as BundleUpdateError {
            resumable = error.isTransient
            #expect(matches(error.kind), "unexpected: \(error)", sourceLocation: sourceLocation)
            #expect(error.description.contains("the local bundle is unchanged"), sourceLocation: sourceLocation)
            #expect(error.description.contains("127.0.0.1"), sourceLocation: sourceLocation)
        }
        #expect(try Data(contentsOf: setup.local.appendingPathComponent("index.sqlite")) == setup.installedIndex,
                sourceLocation: sourceLocation)
        // (A transient failure keeps the blobs it verified in .update/verified/, to resume.)
        #expect(fileSnapshot(of: setup.local, resumable: resumable) == before, "nothing new in the local folder",
                sourceLocation: sourceLocation)
        let bundle = try CacheBundle(contentsOf: setup.local)
        for index in 0..<6 {
            for image in try bundle.images(for: PublishedBundle.source(index)) {
                #expect(try image.data().count == image.byteCount, sourceLocation: sourceLocation)
            }
        }
        try await setup.server.shutdown()
    }

    func changedBlob(_ setup: Setup) throws -> (path: String, bytes: [UInt8]) {
        let variant = try #require(setup.published.variants(of: 0).first)
        return (setup.published.blobPath(of: variant), try setup.published.body(of: variant))
    }

    @Test("wrong bytes for a blob") func wrongBytes() async throws {
        let setup = try await setUp()
        let blob = try changedBlob(setup)
        setup.server.setRoute(blob.path, .image(blob.bytes.map { $0 ^ 0x5A }))
        try await expectFailure(setup) { if case .hashMismatch = $0 { true } else { false } }
    }

    @Test("a blob longer than the index says") func oversizedBlob() async throws {
        let setup = try await setUp()
        let blob = try changedBlob(setup)
        setup.server.setRoute(blob.path, .chunked(.image(blob.bytes + blob.bytes)))
        try await expectFailure(setup) { if case .sizeMismatch = $0 { true } else { false } }
    }

    @Test("a truncated blob") func truncatedBlob() async throws {
        let setup = try await setUp()
        let blob = try changedBlob(setup)
        setup.server.setRoute(blob.path, .truncated(afterBytes: blob.bytes.count / 2, .image(blob.bytes)))
        try await expectFailure(setup) {
            switch $0 { case .truncated, .network: true; default: false }
        }
    }

    @Test("404 for a blob") func missingBlob() async throws {
        let setup = try await setUp()
        setup.server.setRoute(try changedBlob(setup).path, .status(404, body: "Not Found"))
        try await expectFailure(setup) { $0 == .httpStatus(404) }
    }

    @Test("an index of a newer major version") func newerMajor() async throws {
        let setup = try await setUp()
        let index = try rewrittenIndex(setup) { try $0.execute("UPDATE meta SET value = '2' WHERE key = 'format_major'") }
        try publishSigned(index, setup)
        try await expectFailure(setup) { $0 == .unsupportedVersion(found: 2, supported: BundleFormat.majorVersion) }
    }

    @Test("an index that is not SQLite") func notSQLite() async throws {
        let setup = try await setUp()
        try publishSigned(Array("<!DOCTYPE html>\n<html><body>Sorry</body></html>\n".utf8), setup)
        try await expectFailure(setup) { $0 == .invalidIndex }
    }

    @Test("an index whose rows name paths outside the bundle") func hostileRows() async throws {
        let setup = try await setUp()
        let index = try rewrittenIndex(setup) {
            try $0.execute("UPDATE variants SET blob_sha256 = '../../../../etc/passwd' WHERE cache_key = "
                + "(SELECT cache_key FROM variants LIMIT 1)")
        }
        try publishSigned(index, setup)
        try await expectFailure(setup) { $0 == .invalidIndex }
    }

    @Test("a huge index beyond the configured limit, announced or not, signed or not") func hugeIndex() async throws {
        for chunked in [false, true] {
            for signed in [false, true] {
                let setup = try await setUp()
                let huge = FixtureBytes.fakePNG(count: 300_000)
                if signed { try publishSigned(huge, setup) }
                setup.server.setRoute(Self.prefix + "index.sqlite", chunked ? .chunked(.image(huge)) : .image(huge))
                try await expectFailure(setup, configuration: .init(
                    trustedKeys: signed ? [TestKeys.publisher.publicKey] : [], allowsUnsignedUpdates: !signed,
                    maximumIndexByteCount: 100_000)) {
                    $0 == .tooLarge(limit: 100_000)
                }
            }
        }
    }

    @Test("a slow server") func slowServer() async throws {
        let setup = try await setUp()
        let blob = try changedBlob(setup)
        setup.server.setRoute(blob.path, .delayed(seconds: 30, .image(blob.bytes)))
        try await expectFailure(setup, configuration: .init(timeout: 1)) { $0 == .timedOut }
    }

    @Test("a redirect to another host") func redirectElsewhere() async throws {
        let setup = try await setUp()
        let elsewhere = try await FixtureServer.start()
        let blob = try changedBlob(setup)
        elsewhere.setRoute("/evil.jpg", .image(blob.bytes))
        setup.server.setRoute(blob.path, .redirect(status: 302, location: elsewhere.url("/evil.jpg").absoluteString))
        try await expectFailure(setup) {
            if case .redirectRefused(let target) = $0 { target.contains(":\(elsewhere.port)/") } else { false }
        }
        #expect(elsewhere.totalRequestCount == 0)
        try await elsewhere.shutdown()
    }

    @Test("a redirect within the same origin is followed") func redirectWithinOrigin() async throws {
        let setup = try await setUp()
        let blob = try changedBlob(setup)
        setup.server.setRoute("/moved.jpg", .image(blob.bytes))
        setup.server.setRoute(blob.path, .redirect(status: 301, location: "/moved.jpg"))
        let result = try await makeUpdater(setup.server.url(Self.prefix), into: setup.local).update()
        #expect(result.outcome == .updated)
        try await setup.server.shutdown()
    }

    @Test("plain http is refused except for loopback unless explicitly allowed")
    func plainHTTP() throws {
        let local = temporaryUpdateDirectory()
        let keys = BundleUpdater.Configuration(trustedKeys: [TestKeys.publisher.publicKey])
        #expect(throws: BundleUpdateError(.insecureURL, url: URL(string: "http://cdn.example.com/b/")!)) {
            try BundleUpdater(from: URL(string: "http://cdn.example.com/b/")!, into: local, configuration: keys)
        }
        #expect(throws: BundleUpdateError.self) {
            try BundleUpdater(from: URL(string: "ftp://x.test/b/")!, into: local, configuration: keys)
        }
        _ = try BundleUpdater(from: URL(string: "http://cdn.example.com/b/")!, into: local,
                              configuration: .init(trustedKeys: keys.trustedKeys, allowsInsecureHTTP: true))
        _ = try BundleUpdater(from: URL(string: "http://127.0.0.1:8080/b/")!, into: local, configuration: keys)
        _ = try BundleUpdater(from: URL(string: "http://[::1]:8080/b/")!, into: local, configuration: keys)
        _ = try BundleUpdater(from: URL(string: "https://cdn.example.com/b/")!, into: local, configuration: keys)
    }

    @Test("without a trusted key an updater is refused unless unsigned updates are allowed explicitly")
    func noTrustedKeys() throws {
        let base = URL(string: "https://cdn.example.com/Images.warmcache/")!
        do {
            _ = try BundleUpdater(from: base, into: temporaryUpdateDirectory())
            Issue.record("an updater without keys was made")
        } catch let error as BundleUpdateError {
            #expect(error.kind == .noTrustedKeys)
            #expect(error.description.contains("trustedKeys") && error.description.contains("allowsUnsignedUpdates"))
        }
        _ = try BundleUpdater(from: base, into: temporaryUpdateDirectory(),
                              configuration: .init(allowsUnsignedUpdates: true))
    }

    /// Publishes `index` with a statement signed by the publisher's key (version 3).
    func publishSigned(_ index: [UInt8], _ setup: Setup) throws {
        let statement = BundleStatement(index: IndexDigest(sha256: ContentHash.sha256(Data(index)), byteCount: Int64(index.count)),
                                        version: 3, signedAt: Date(), expiresAt: Date().addingTimeInterval(86_400))
        Release(index: index, statement: Array(try statement.signed(by: TestKeys.publisher))).serve(on: setup.server)
    }

    /// The published version-2 index with `change` applied to a copy.
    func rewrittenIndex(_ setup: Setup, _ change: (SQLiteConnection) throws -> Void) throws -> [UInt8] {
        let copy = FileManager.default.temporaryDirectory.appendingPathComponent("wc-index-\(UUID().uuidString).sqlite")
        try FileManager.default.copyItem(at: setup.published.indexURL, to: copy)
        do {
            let connection = try SQLiteConnection(path: copy.path, readOnly: false)
            try change(connection)
        }
        return Array(try Data(contentsOf: copy))
    }
}
