import Foundation
import WarmCache
@testable import WarmCacheBuilder

/// Builds small bundles with fake (but distinct) blob bytes for writer/reader tests.
enum BundleFixtures {
    static func temporaryDirectory(_ label: String = "bundle") throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("wc-\(label)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    struct Written {
        var contents: BundleContents
        /// Blob bytes by cache key.
        var bytes: [String: Data]
    }

    /// Stores blobs for `sources` x (@1x, @2x, @3x) x (webp, jpeg) `inside` 100 pt variants and commits.
    @discardableResult
    static func write(to bundleURL: URL, sources: [String], salt: String = "", placeholder: Bool = true,
                      createdAt: Date? = nil, fingerprint: String? = nil, shard: Shard? = nil,
                      generator: String = "warm-cache tests") throws -> Written {
        let writer = BundleWriter(bundleURL: bundleURL, generator: generator)
        try writer.prepare()
        var contents = BundleContents(createdAt: createdAt, manifestFingerprint: fingerprint, shard: shard)
        var bytes: [String: Data] = [:]
        for source in sources {
            let identifier = SourceIdentifier(source)
            contents.sources.append(.init(
                identifier: identifier, contentSHA256: ContentHash.sha256(Data((source + salt).utf8)), format: "jpeg",
                pixelSize: PixelSize(width: 400, height: 300), byteCount: 12_345,
                placeholder: placeholder ? ImagePlaceholder(thumbHash: Data([1, 2, 3]), blurHash: "LEHV6nWB2yk8",
                                                            averageColor: RGBAColor(red: 10, green: 20, blue: 30))
                                         : nil))
            for scale in 1...3 {
                for format in [ImageFormat.webp, .jpeg] {
                    let key = VariantKey(source: identifier,
                                         spec: VariantSpec(width: 100, height: nil, scale: scale, format: format))
                    let data = Data("\(key.rawValue)\(salt)".utf8)
                    let blob = try writer.storeBlob(data, format: format)
                    bytes[key.rawValue] = data
                    contents.variants.append(.init(
                        key: key, pixelSize: PixelSize(width: 100 * scale, height: 75 * scale), byteCount: data.count,
                        blobSHA256: blob.sha256, hasAlpha: false, presets: ["card"]))
                }
            }
        }
        try writer.commit(contents)
        return Written(contents: contents, bytes: bytes)
    }

    /// Every file below `directory` with its bytes, for before/after comparisons.
    static func snapshot(_ directory: URL) throws -> [String: Data] {
        var files: [String: Data] = [:]
        let enumerator = FileManager.default.enumerator(at: directory, includingPropertiesForKeys: [.isRegularFileKey])
        while let url = enumerator?.nextObject() as? URL {
            if (try url.resourceValues(forKeys: [.isRegularFileKey])).isRegularFile == true {
                files[String(url.path.dropFirst(directory.path.count))] = try Data(contentsOf: url)
            }
        }
        return files
    }
}
