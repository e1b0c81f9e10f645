import Foundation
import Testing
import WarmCache
import WarmCacheBuilder
import WarmCacheImaging

/// Checks on a published bundle through the runtime library, the way an app reads it.
enum BundleChecks {
    /// Opens the bundle and checks every variant of `source`: the format in the key is the
    /// blob's format (extension, magic bytes, what libvips recognises), the pixel size in the
    /// index is the blob's real size and the size the spec asks for from `sourceSize`, and the
    /// blob decodes in full. Returns the variants.
    @discardableResult
    static func checkVariants(in bundle: CacheBundle, source: SourceIdentifier, sourceSize: PixelSize,
                              expectedCount: Int? = nil,
                              sourceLocation: SourceLocation = #_sourceLocation) throws -> [CachedImage] {
        let images = try bundle.images(for: source)
        if let expectedCount {
            #expect(images.count == expectedCount, "variants of \(source)", sourceLocation: sourceLocation)
        }
        #expect(!images.isEmpty, "no variants for \(source)", sourceLocation: sourceLocation)
        for image in images {
            try checkImage(image, sourceSize: sourceSize, sourceLocation: sourceLocation)
        }
        return images
    }

    static func checkImage(_ image: CachedImage, sourceSize: PixelSize,
                           sourceLocation: SourceLocation = #_sourceLocation) throws {
        let key = try #require(image.key, "unparsable key \(image.cacheKey)", sourceLocation: sourceLocation)
        #expect(key.spec.format == image.format, "\(image.cacheKey)", sourceLocation: sourceLocation)
        #expect(image.fileURL.pathExtension == image.format.fileExtension, "\(image.cacheKey)", sourceLocation: sourceLocation)
        let data = try image.data()
        #expect(data.count == image.byteCount, "\(image.cacheKey)", sourceLocation: sourceLocation)
        #expect(ContentHash.sha256(data) == image.sha256, "\(image.cacheKey)", sourceLocation: sourceLocation)
        #expect(sniff(data) == image.format, "magic bytes of \(image.cacheKey)", sourceLocation: sourceLocation)

        let expected = expectedPixelSize(key.spec, source: sourceSize)
        #expect(abs(image.pixelSize.width - expected.width) <= expected.slackWidth
                && abs(image.pixelSize.height - expected.height) <= expected.slackHeight,
                "\(image.cacheKey): index says \(image.pixelSize), expected about \(expected.width)x\(expected.height) from a \(sourceSize) source",
                sourceLocation: sourceLocation)

        // Decode it: the header must agree with the index, and the pixels must decode in full
        // (the engine fails on truncated or corrupt data).
        let decoded = try SourceImages.engine.open(data, name: image.cacheKey)
        #expect(decoded.info.format == image.format, "\(image.cacheKey)", sourceLocation: sourceLocation)
        #expect(decoded.info.pixelSize == image.pixelSize, "\(image.cacheKey): blob is \(decoded.info.pixelSize)",
                sourceLocation: sourceLocation)
        let probe = try decoded.render([VariantSpec(width: 8, height: 8, format: .png)])
        #expect(probe.count == 1 && !(probe.first?.data.isEmpty ?? true), "\(image.cacheKey) did not decode",
                sourceLocation: sourceLocation)
    }

    /// The size a spec gives from a source of `source` pixels (fit `inside` and `cover`, no
    /// upscaling). The side the box constrains is exact; the other may round either way.
    static func expectedPixelSize(_ spec: VariantSpec, source: PixelSize)
        -> (width: Int, height: Int, slackWidth: Int, slackHeight: Int) {
        let boxWidth = spec.width.map { $0 * spec.scale }
        let boxHeight = spec.height.map { $0 * spec.scale }
        switch spec.fit {
        case .cover:
            let width = boxWidth ?? source.width, height = boxHeight ?? source.height
            if width <= source.width && height <= source.height { return (width, height, 0, 0) }
            return (min(width, source.width), min(height, source.height), 1, 1)  // too small to cover: not checked closely
        default:
            let scaleW = boxWidth.map { Double($0) / Double(source.width) } ?? .infinity
            let scaleH = boxHeight.map { Double($0) / Double(source.height) } ?? .infinity
            let scale = min(scaleW, scaleH, 1)
            if scale >= 1 { return (source.width, source.height, 0, 0) }
            let width = Double(source.width) * scale, height = Double(source.height) * scale
            return (Int(width.rounded()), Int(height.rounded()), scaleW <= scaleH ? 0 : 1, scaleH <= scaleW ? 0 : 1)
        }
    }

    /// The format the first bytes announce.
    static func sniff(_ data: Data) -> ImageFormat? {
        let bytes = [UInt8](data.prefix(32))
        func at(_ offset: Int, _ text: String) -> Bool {
            let pattern = Array(text.utf8)
            return bytes.count >= offset + pattern.count && Array(bytes[offset..<offset + pattern.count]) == pattern
        }
        if bytes.starts(with: [0xFF, 0xD8, 0xFF]) { return .jpeg }
        if bytes.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) { return .png }
        if at(0, "RIFF") && at(8, "WEBP") { return .webp }
        if at(0, "GIF8") { return .gif }
        if at(4, "ftypavif") || at(4, "ftypavis") { return .avif }
        if at(4, "ftypheic") || at(4, "ftypmif1") { return .heic }
        if bytes.starts(with: [0xFF, 0x0A]) || at(4, "JXL ") { return .jxl }
        return nil
    }
}

/// Every file and directory below a directory, hidden ones included: relative path → SHA-256 of
/// the file ("dir" for a directory). Two equal snapshots mean byte-identical trees.
func snapshot(of directory: URL) -> [String: String] {
    var result: [String: String] = [:]
    let base = directory.standardizedFileURL.resolvingSymlinksInPath().path
    guard let enumerator = FileManager.default.enumerator(atPath: base) else { return result }
    for case let relative as String in enumerator {
        let full = base + "/" + relative
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: full, isDirectory: &isDirectory) else { continue }
        if isDirectory.boolValue {
            result[relative] = "dir"
        } else {
            result[relative] = (try? Data(contentsOf: URL(fileURLWithPath: full))).map(ContentHash.sha256) ?? "unreadable"
        }
    }
    return result
}

/// What differs between two snapshots, for messages.
func differences(_ before: [String: String], _ after: [String: String]) -> [String] {
    let keys = Set(before.keys).union(after.keys).sorted()
    return keys.compactMap { key in
        switch (before[key], after[key]) {
        case let (old?, new?) where old != new: return "changed \(key)"
        case (nil, _?): return "added \(key)"
        case (_?, nil): return "removed \(key)"
        default: return nil
        }
    }
}
