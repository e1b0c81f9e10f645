import Foundation
import WarmCache
import WarmCacheBuilder
import WarmCacheTestSupport
@testable import WarmCacheUpdates

/// The keys the tests sign with: the publisher's, the one it rotates to, and an attacker's.
enum TestKeys {
    static let publisher = BundleSigningKey.generate()
    static let next = BundleSigningKey.generate()
    static let attacker = BundleSigningKey.generate()
}

/// A bundle written with the builder's `BundleWriter` (blobs are filler bytes, no imaging),
/// signed as `warm` signs it, and published on a loopback `FixtureServer` the way a static host
/// serves it: the directory's files, with the index and the statement carrying content-derived
/// `ETag`s as object stores do.
struct PublishedBundle {
    static let widths = [100, 200]

    let directory: URL
    private(set) var contents = BundleContents()
    private(set) var generation: [Int] = []
    let sourceCount: Int
    let blobSize: Int
    /// Signs every version written (`nil`: unsigned, no statement).
    var signingKey: BundleSigningKey?

    /// Writes a bundle of `sources` sources with two variants each, signed as version 1.
    init(sources: Int, blobSize: Int = 1_500, signingKey: BundleSigningKey? = TestKeys.publisher) throws {
        directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("wc-published-\(UUID().uuidString)/Images.warmcache")
        sourceCount = sources
        self.blobSize = blobSize
        self.signingKey = signingKey
        generation = Array(repeating: 0, count: sources)
        try write()
    }

    static func source(_ index: Int) -> SourceIdentifier {
        SourceIdentifier("https://img.test/photos/\(index).jpg")
    }

    /// Re-bakes the given sources (their variants get new bytes) and publishes a new index.
    mutating func change(_ indices: some Sequence<Int>) throws {
        for index in indices { generation[index] += 1 }
        try write()
    }

    private mutating func write() throws {
        let writer = BundleWriter(bundleURL: directory)
        try writer.prepare()
        var contents = BundleContents()
        for index in 0..<sourceCount {
            let source = Self.source(index)
            contents.sources.append(BundleContents.Source(
                identifier: source, contentSHA256: String(repeating: "a", count: 64), format: "jpeg",
                pixelSize: PixelSize(width: 1000, height: 800), byteCount: 100_000))
            for width in Self.widths {
                let seed = UInt64(index) << 24 | UInt64(width) << 8 | UInt64(generation[index])
                let bytes = Data(FixtureBytes.fakePNG(count: blobSize + index % 97 + width, seed: seed))
                let blob = try writer.storeBlob(bytes, format: .jpeg)
                let key = VariantKey(source: source, spec: VariantSpec(width: width, height: nil, format: .jpeg))
                contents.variants.append(BundleContents.Variant(
                    key: key, pixelSize: PixelSize(width: width, height: width * 4 / 5), byteCount: blob.byteCount,
                    blobSHA256: blob.sha256, hasAlpha: false))
            }
        }
        try writer.commit(contents)
        self.contents = contents
        if let signingKey {
            try sign(with: signingKey)
        }
    }

    /// Signs the current index: the next version unless given, valid for `validity` from `now`.
    @discardableResult
    func sign(with key: BundleSigningKey = TestKeys.publisher, version: Int64? = nil,
              validity: TimeInterval = BundleSigner.defaultValidity, now: Date = Date()) throws -> SignedStatement {
        try BundleSigner(bundleURL: directory, key: key).sign(version: version, validity: validity, now: now).statement
    }

    var indexURL: URL { directory.appendingPathComponent(BundleFormat.indexFileName) }
    var statementURL: URL { directory.appendingPathComponent(BundleFormat.statementFileName) }

    /// The published index and statement, as files for replaying them.
    var release: Release {
        get throws {
            Release(index: Array(try Data(contentsOf: indexURL)),
                    statement: FileManager.default.contents(atPath: statementURL.path).map(Array.init))
        }
    }

    /// Serves the directory at `prefix` (which ends in `/`), the index and statement with an ETag
    /// of their content, or, given `lastModified`, with only that validator (as a plain file
    /// server does).
    func serve(on server: FixtureServer, at prefix: String = "/pub/Images.warmcache/",
               lastModified: Date? = nil) throws {
        server.setRoute(prefix, .directory(directory))
        try release.serve(on: server, at: prefix, lastModified: lastModified)
    }

    /// The path of a blob under `prefix` on the server.
    func blobPath(of variant: BundleContents.Variant, at prefix: String = "/pub/Images.warmcache/") -> String {
        prefix + BundleFormat.objectPath(sha256: variant.blobSHA256, format: .jpeg)
    }

    /// Bytes of all distinct blobs.
    var blobBytes: Int {
        Dictionary(contents.variants.map { ($0.blobSHA256, $0.byteCount) }, uniquingKeysWith: { a, _ in a })
            .values.reduce(0, +)
    }

    /// The bytes of a variant's blob as published.
    func body(of variant: BundleContents.Variant) throws -> [UInt8] {
        Array(try Data(contentsOf: directory.appendingPathComponent(
            BundleFormat.objectPath(sha256: variant.blobSHA256, format: .jpeg))))
    }

    /// The variants of one source.
    func variants(of index: Int) -> [BundleContents.Variant] {
        contents.variants.filter { $0.key.source == Self.source(index) }
    }
}

/// One release's index and statement files (the blobs are the published directory's).
struct Release: Sendable {
    var index: [UInt8]
    var statement: [UInt8]?

    /// Routes `index.sqlite` and `statement.json` under `prefix` to these files (no statement: 404).
    func serve(on server: FixtureServer, at prefix: String = "/pub/Images.warmcache/", lastModified: Date? = nil) {
        func resource(_ body: [UInt8], type: String) -> FixtureRoute {
            .resource(FixtureResource(body: body, contentType: type,
                                      etag: lastModified == nil ? "\"\(ContentHash.sha256(Data(body)).prefix(16))\"" : nil,
                                      lastModified: lastModified))
        }
        server.setRoute(prefix + BundleFormat.indexFileName, resource(index, type: "application/vnd.sqlite3"))
        if let statement {
            server.setRoute(prefix + BundleFormat.statementFileName, resource(statement, type: "application/json"))
        } else {
            server.setRoute(prefix + BundleFormat.statementFileName, .status(404, body: "Not Found"))
        }
    }

    var signed: SignedStatement? {
        statement.flatMap { try? SignedStatement.readUnverified(Data($0)) }
    }
}

/// Every file below `directory` (relative path → SHA-256), the updater's lock aside: what a
/// refused update must leave exactly as it was. `resumable`: blobs verified before a transient
/// failure (kept in `.update/verified/` for the next update) are left out.
func fileSnapshot(of directory: URL, resumable: Bool = false) -> [String: String] {
    var files: [String: String] = [:]
    guard let enumerator = FileManager.default.enumerator(at: directory, includingPropertiesForKeys: [.isRegularFileKey])
    else { return files }
    let base = directory.standardizedFileURL.path + "/"
    for case let url as URL in enumerator {
        guard (try? url.resourceValues(forKeys: [.isRegularFileKey]))?.isRegularFile == true,
              let data = try? Data(contentsOf: url) else { continue }
        let path = url.standardizedFileURL.path
        let relative = path.hasPrefix(base) ? String(path.dropFirst(base.count)) : path
        if relative == ".update/lock" || (resumable && relative.hasPrefix(".update/verified/")) { continue }
        files[relative] = ContentHash.sha256(data)
    }
    return files
}

/// A fresh local directory for an updater.
func temporaryUpdateDirectory() -> URL {
    FileManager.default.temporaryDirectory.appendingPathComponent("wc-local-\(UUID().uuidString)/Images.warmcache")
}

/// An updater that trusts the publisher's key, unless the configuration names keys or allows
/// unsigned updates; `now` moves its clock.
func makeUpdater(_ base: URL, into directory: URL, _ configuration: BundleUpdater.Configuration = .init(),
                 now: @escaping @Sendable () -> Date = { Date() }) throws -> BundleUpdater {
    var configuration = configuration
    if configuration.trustedKeys.isEmpty, !configuration.allowsUnsignedUpdates {
        configuration.trustedKeys = [TestKeys.publisher.publicKey]
    }
    return try BundleUpdater(from: base, into: directory, configuration: configuration, now: now)
}
