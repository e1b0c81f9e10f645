import Foundation
import WarmCache
import WarmCacheImaging
import WarmCacheTestSupport

/// An image the fixture server serves, with what the test knows about it.
struct SourceImage: Sendable {
    var bytes: [UInt8]
    var contentType: String
    var pixelSize: PixelSize
}

/// Source images for the fixture server: the small photos in `Fixtures/` and distinct images
/// derived from them with the imaging engine (so a test can serve 30 different originals without
/// storing 30 files).
enum SourceImages {
    /// One engine for the suite (libvips is process-wide anyway).
    static let engine: ImagingEngine = {
        do { return try ImagingEngine() } catch { fatalError("libvips unavailable: \(error)") }
    }()

    /// The photos in `Fixtures/` (see its LICENSES.md): chelsea.jpg and coffee.jpg (240x160 RGB
    /// JPEG), coins.png (192x152 grey PNG).
    static func fixture(_ name: String) throws -> SourceImage {
        guard let url = Bundle.module.url(forResource: "Fixtures/\(name)", withExtension: nil) else {
            throw SourceImageError("fixture \(name) is not in the test bundle")
        }
        let data = try Data(contentsOf: url)
        let info = try engine.open(data, name: name).info
        return SourceImage(bytes: Array(data), contentType: name.hasSuffix(".png") ? "image/png" : "image/jpeg",
                           pixelSize: info.pixelSize)
    }

    /// A route per image, `/<prefix>/<index>`, each with its own ETag (`"<prefix><index>"`).
    static func routes(_ images: [SourceImage], under prefix: String) -> [String: FixtureRoute] {
        var routes: [String: FixtureRoute] = [:]
        for (index, image) in images.enumerated() {
            routes["/\(prefix)/\(index)"] = .image(image.bytes, contentType: image.contentType, etag: "\"\(prefix)\(index)\"")
        }
        return routes
    }

    /// `count` different images, JPEG and PNG alternately, each a resize of a fixture photo to a
    /// width of its own (so their sizes and bytes differ). Deterministic. `offset` shifts the
    /// widths, to make a further, different set.
    static func distinct(_ count: Int, offset: Int = 0) throws -> [SourceImage] {
        let bases = try ["chelsea.jpg", "coffee.jpg", "coins.png"].map { name in
            try engine.open(Data(try fixture(name).bytes), name: name)
        }
        return try (0..<count).map { index in
            let base = bases[index % bases.count]
            let format: ImageFormat = index % 2 == 0 ? .jpeg : .png
            let spec = VariantSpec(width: 140 + offset + index, height: nil, format: format, quality: 85)
            guard let variant = try base.render([spec]).first else {
                throw SourceImageError("rendering source image \(index) gave nothing")
            }
            return SourceImage(bytes: Array(variant.data), contentType: format == .png ? "image/png" : "image/jpeg",
                               pixelSize: PixelSize(width: variant.pixelWidth, height: variant.pixelHeight))
        }
    }
}

extension SourceImages {
    /// `count` distinct small JPEGs (96–223 px wide, a few KB each): the fixture photos, each
    /// image at a width and quality of its own, so every file differs. Deterministic, and cheap
    /// enough for thousands.
    static func small(_ count: Int) throws -> [[UInt8]] {
        let bases = try ["chelsea.jpg", "coffee.jpg", "coins.png"].map { name in
            try engine.open(Data(try fixture(name).bytes), name: name)
        }
        return try (0..<count).map { index in
            let step = index / bases.count
            let spec = VariantSpec(width: 96 + step % 128, height: nil, format: .jpeg, quality: 50 + (step / 128) % 45)
            guard let variant = try bases[index % bases.count].render([spec]).first else {
                throw SourceImageError("rendering small image \(index) gave nothing")
            }
            return Array(variant.data)
        }
    }
}

struct SourceImageError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
