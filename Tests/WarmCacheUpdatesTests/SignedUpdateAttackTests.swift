import Foundation
import Testing
import WarmCache
import WarmCacheBuilder
import WarmCacheTestSupport
@testable import WarmCacheUpdates

/// The attacks TUF lists against update systems (theupdateframework.io, "Security"), each played
/// by a hostile server on 127.0.0.1 against an app that installed release 2 of a bundle signed by
/// the publisher's key, while the publisher has released 3. Each refused attack must keep
/// release 2 in use, name what happened, and leave nothing new in the local folder.
@Suite("Signed updates against TUF's attacks", .serialized)
struct SignedUpdateAttackTests {
    static let prefix = "/pub/Images.warmcache/"

    /// What the test sees: the releases, the server, the app's folder and its updater's settings.
    struct Scene: @unchecked Sendable {
        var published: PublishedBundle
        let server: FixtureServer
        let local: URL
        let r1: Release
        let r2: Release
        let r3: Release
        /// A copy of release 2's whole bundle, as an app ships it.
        let shipped: URL
        /// Where the app updates from (the server, or a mirror).
        var base: URL
        var configuration = BundleUpdater.Configuration(trustedKeys: [TestKeys.publisher.publicKey])
        var now: Date = Date()
        var mirror: FixtureServer?

        /// Serves `release`'s index and statement (blobs: release 3's directory).
        func serve(_ release: Release) {
            release.serve(on: server, at: SignedUpdateAttackTests.prefix)
        }
    }

    /// Releases 1, 2 and 3 signed as versions 1, 2, 3; release 2 installed; release 3 served.
    static func makeScene() async throws -> Scene {
        var published = try PublishedBundle(sources: 6)
        let r1 = try published.release
        try published.change([0])
        let r2 = try published.release
        let shipped = FileManager.default.temporaryDirectory
            .appendingPathComponent("wc-shipped-\(UUID().uuidString)/Images.warmcache")
        try FileManager.default.createDirectory(at: shipped.deletingLastPathComponent(), withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: published.directory, to: shipped)
        let server = try await FixtureServer.start()
        try published.serve(on: server)
        let local = temporaryUpdateDirectory()
        let installed = try await makeUpdater(server.url(prefix), into: local).update()
        #expect(installed.version == 2)
        try published.change([1])
        let r3 = try published.release
        try published.serve(on: server)
        return Scene(published: published, server: server, local: local, r1: r1, r2: r2, r3: r3, shipped: shipped,
                     base: server.url(prefix))
    }

    /// What an attack should come to: refused by the named check, or (key rotation) accepted.
    enum Outcome: Sendable, Equatable {
        case refused(String)
        case installed(version: Int64, keyID: String)
    }

    struct Attack: Sendable, CustomTestStringConvertible {
        let name: String
        let outcome: Outcome
        let stage: @Sendable (inout Scene) async throws -> Void
        var testDescription: String { name }
    }

    /// A statement naming `index` that `key` signed.
    static func statement(for index: [UInt8], version: Int64, key: BundleSigningKey, signedAt: Date = Date(),
                          validity: TimeInterval = 86_400) throws -> [UInt8] {
        let statement = BundleStatement(index: IndexDigest(sha256: ContentHash.sha256(Data(index)), byteCount: Int64(index.count)),
                                        version: version, signedAt: signedAt, expiresAt: signedAt.addingTimeInterval(validity))
        return Array(try statement.signed(by: key))
    }

    /// An index of the attacker's: release 3's with one blob swapped for the attacker's bytes.
    static func attackerIndex(_ scene: Scene) throws -> (index: [UInt8], blob: [UInt8], path: String) {
        let blob = Array("attacker's image".utf8) + FixtureBytes.fakePNG(count: 2_000, seed: 666)
        let sha256 = ContentHash.sha256(Data(blob))
        let copy = FileManager.default.temporaryDirectory.appendingPathComponent("wc-evil-\(UUID().uuidString).sqlite")
        try Data(scene.r3.index).write(to: copy)
        do {
            let connection = try SQLiteConnection(path: copy.path, readOnly: false)
            try connection.execute("UPDATE variants SET blob_sha256 = '\(sha256)', byte_count = \(blob.count) "
                + "WHERE cache_key = (SELECT min(cache_key) FROM variants)")
        }
        return (Array(try Data(contentsOf: copy)), blob,
                prefix + BundleFormat.objectPath(sha256: sha256, format: .jpeg))
    }

    static let attacks: [Attack] = [
        Attack(name: "arbitrary installation: a new index, unsigned", outcome: .refused("unsigned")) { scene in
            let evil = try attackerIndex(scene)
            scene.server.setRoute(evil.path, .image(evil.blob))
            scene.serve(Release(index: evil.index, statement: nil))
        },
        Attack(name: "arbitrary installation: a new index signed by the attacker's key",
               outcome: .refused("untrustedKey")) { scene in
            let evil = try attackerIndex(scene)
            scene.server.setRoute(evil.path, .image(evil.blob))
            scene.serve(Release(index: evil.index, statement: try statement(for: evil.index, version: 9, key: TestKeys.attacker)))
        },
        Attack(name: "arbitrary installation: the publisher's statement altered to name a new index",
               outcome: .refused("badSignature")) { scene in
            let evil = try attackerIndex(scene)
            var envelope = try JSONSerialization.jsonObject(with: Data(try #require(scene.r3.statement))) as! [String: Any]
            let forged = try statement(for: evil.index, version: 9, key: TestKeys.attacker)
            let forgedEnvelope = try JSONSerialization.jsonObject(with: Data(forged)) as! [String: Any]
            envelope["payload"] = forgedEnvelope["payload"]  // the genuine signature stays
            scene.serve(Release(index: evil.index, statement: Array(try JSONSerialization.data(withJSONObject: envelope))))
        },
        Attack(name: "rollback: release 1 replayed", outcome: .refused("rollback")) { scene in
            scene.serve(scene.r1)
        },
        Attack(name: "rollback: below the release shipped in the app, on first launch",
               outcome: .refused("rollback")) { scene in
            scene.serve(scene.r1)
            scene.configuration.seedBundles = [scene.shipped]
            try FileManager.default.removeItem(at: scene.local)
        },
        Attack(name: "rollback: the installed version again with another index", outcome: .refused("versionReused")) { scene in
            scene.serve(Release(index: scene.r3.index, statement: try statement(for: scene.r3.index, version: 2,
                                                                                key: TestKeys.publisher)))
        },
        Attack(name: "indefinite freeze: the installed statement revalidated (304) after it expired",
               outcome: .refused("expired")) { scene in
            scene.serve(scene.r2)
            scene.now = try #require(scene.r2.signed).statement.expiresAt.addingTimeInterval(1)
        },
        Attack(name: "indefinite freeze: the installed statement re-sent after it expired",
               outcome: .refused("expired")) { scene in
            scene.server.setRoute(prefix + BundleFormat.statementFileName, .image(try #require(scene.r2.statement)))
            scene.now = try #require(scene.r2.signed).statement.expiresAt.addingTimeInterval(1)
        },
        Attack(name: "indefinite freeze: a newer release whose statement has expired", outcome: .refused("expired")) { scene in
            let old = Date().addingTimeInterval(-40 * 86_400)
            scene.serve(Release(index: scene.r3.index, statement: try statement(
                for: scene.r3.index, version: 3, key: TestKeys.publisher, signedAt: old, validity: 30 * 86_400)))
        },
        Attack(name: "endless data: a statement that never ends", outcome: .refused("invalidStatement")) { scene in
            scene.server.setRoute(prefix + BundleFormat.statementFileName, .endless(contentType: "application/json"))
        },
        Attack(name: "endless data: an index that never ends", outcome: .refused("indexMismatch")) { scene in
            scene.server.setRoute(prefix + BundleFormat.indexFileName, .endless(contentType: "application/vnd.sqlite3"))
        },
        Attack(name: "slow retrieval: a statement dripped a byte at a time", outcome: .refused("tooSlow")) { scene in
            scene.server.setRoute(prefix + BundleFormat.statementFileName,
                                  .trickled(chunkSize: 1, interval: 0.25, .image(try #require(scene.r3.statement))))
            scene.configuration.timeout = 2
        },
        Attack(name: "slow retrieval: an index dripped", outcome: .refused("tooSlow")) { scene in
            scene.server.setRoute(prefix + BundleFormat.indexFileName,
                                  .trickled(chunkSize: 16, interval: 0.25, .image(scene.r3.index)))
            scene.configuration.maximumUpdateDuration = 3
        },
        Attack(name: "mix-and-match: release 1's index with release 3's statement", outcome: .refused("indexMismatch")) { scene in
            scene.serve(Release(index: scene.r1.index, statement: scene.r3.statement))
        },
        Attack(name: "malicious mirror: a genuine but old release", outcome: .refused("rollback")) { scene in
            let mirror = try await FixtureServer.start()
            mirror.setRoute(prefix, .directory(scene.published.directory))
            scene.r1.serve(on: mirror, at: prefix)
            scene.mirror = mirror
            scene.base = mirror.url(prefix)
        },
        Attack(name: "malicious mirror: its own image under the genuine index", outcome: .refused("hashMismatch")) { scene in
            let mirror = try await FixtureServer.start()
            mirror.setRoute(prefix, .directory(scene.published.directory))
            scene.r3.serve(on: mirror, at: prefix)
            let variant = try #require(scene.published.variants(of: 1).first)
            mirror.setRoute(scene.published.blobPath(of: variant),
                            .image(FixtureBytes.fakePNG(count: variant.byteCount, seed: 666)))
            scene.mirror = mirror
            scene.base = mirror.url(prefix)
        },
        Attack(name: "key rotation: a statement by the retired key", outcome: .refused("untrustedKey")) { scene in
            scene.configuration.trustedKeys = [TestKeys.next.publicKey]
        },
        Attack(name: "key rotation: the next key, trusted in the app beforehand, is accepted",
               outcome: .installed(version: 4, keyID: TestKeys.next.keyID)) { scene in
            scene.configuration.trustedKeys = [TestKeys.publisher.publicKey, TestKeys.next.publicKey]
            try scene.published.sign(with: TestKeys.next)
            try scene.published.serve(on: scene.server)
        },
    ]

    @Test("each attack is refused, keeps release 2 and leaves nothing behind", arguments: attacks)
    func attack(_ attack: Attack) async throws {
        var scene = try await Self.makeScene()
        try await attack.stage(&scene)
        let before = fileSnapshot(of: scene.local)
        let now = scene.now
        let updater = try makeUpdater(scene.base, into: scene.local, scene.configuration, now: { now })
        let started = Date()
        switch attack.outcome {
        case .refused(let check):
            do {
                let result = try await updater.update()
                Issue.record("installed version \(result.version ?? 0)")
            } catch let error as BundleUpdateError {
                #expect(Self.check(error.kind) == check, "\(error)")
                #expect(error.description.hasSuffix("the local bundle is unchanged"), "\(error)")
                #expect(!error.description.contains("\n"), "one line")
            }
            #expect(fileSnapshot(of: scene.local) == before, "nothing new in the local folder")
            if FileManager.default.fileExists(atPath: scene.local.appendingPathComponent("index.sqlite").path) {
                let bundle = try CacheBundle(contentsOf: scene.local)
                #expect(try bundle.images(for: PublishedBundle.source(0)).count == 2)
                #expect(try Data(contentsOf: scene.local.appendingPathComponent("index.sqlite")) == Data(scene.r2.index),
                        "release 2 is still the one in use")
            } else {
                #expect(!FileManager.default.fileExists(atPath: scene.local.appendingPathComponent("objects").path))
            }
        case .installed(let version, let keyID):
            let result = try await updater.update()
            #expect(result.outcome == .updated && result.version == version && result.keyID == keyID)
            #expect(try Data(contentsOf: scene.local.appendingPathComponent("index.sqlite")) == Data(scene.r3.index))
        }
        #expect(Date().timeIntervalSince(started) < 60, "bounded")
        try await scene.mirror?.shutdown()
        try await scene.server.shutdown()
    }

    /// The check an error names, as the table spells it.
    static func check(_ kind: BundleUpdateError.Kind) -> String {
        switch kind {
        case .unsigned: "unsigned"
        case .untrustedKey: "untrustedKey"
        case .badSignature: "badSignature"
        case .invalidStatement: "invalidStatement"
        case .indexMismatch: "indexMismatch"
        case .rollback: "rollback"
        case .versionReused: "versionReused"
        case .expired: "expired"
        case .tooSlow: "tooSlow"
        case .hashMismatch: "hashMismatch"
        default: "\(kind)"
        }
    }
}
