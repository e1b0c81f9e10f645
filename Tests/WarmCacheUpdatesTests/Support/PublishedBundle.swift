import Foundation
import WarmCache
import WarmCacheBuilder
import WarmCacheTestSupport

/// A bundle written with the builder's `BundleWriter` (blobs are filler bytes, no imaging) and
/// published on a loopback `FixtureServer` the way a static host serves it: the directory's
/// files, with the index carrying a content-derived `ETag` as object stores do.
struct PublishedBundle {
    static let widths = [100, 200]

    let directory: URL
    private(set) var contents = BundleContents()
    private(set) var generation: [Int] = []
    let sourceCount: Int
    let blobSize: Int

    /// Writes a bundle of `sources` sources with two variants each.
    init(sources: Int, blobSize: Int = 1_500) throws {
        directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("wc-published-\(UUID().uuidString)/Images.warmcache")
        sourceCount = sources
        self.blobSize = blobSize
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
    }

    var indexURL: URL { directory.appendingPathComponent(BundleFormat.indexFileName) }

    /// Serves the directory at `prefix` (which ends in `/`), the index with an ETag of its content,
    /// or, given `lastModified`, with only that validator (as a plain file server does).
    func serve(on server: FixtureServer, at prefix: String = "/pub/Images.warmcache/",
               lastModified: Date? = nil) throws {
        server.setRoute(prefix, .directory(directory))
        let index = try Data(contentsOf: indexURL)
        server.setRoute(prefix + BundleFormat.indexFileName,
                        .resource(FixtureResource(
                            body: Array(index), contentType: "application/vnd.sqlite3",
                            etag: lastModified == nil ? "\"\(ContentHash.sha256(index).prefix(16))\"" : nil,
                            lastModified: lastModified)))
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

/// A fresh local directory for an updater.
func temporaryUpdateDirectory() -> URL {
    FileManager.default.temporaryDirectory.appendingPathComponent("wc-local-\(UUID().uuidString)/Images.warmcache")
}
