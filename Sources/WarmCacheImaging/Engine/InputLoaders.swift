import WarmCache

/// The input formats the engine accepts, by libvips loader.
///
/// libvips can load many more formats (PDF, SVG, ImageMagick's long tail, FITS, ...). Those
/// loaders parse complex, rarely-fuzzed formats or reach out to other files, so anything not
/// on this list is refused as ``ImagingError/Kind/unsupportedFormat`` before it is parsed.
enum InputLoaders {
    /// Loader families, keyed by the lowercased libvips type name without `VipsForeignLoad`
    /// and `Buffer` (`VipsForeignLoadNsgifBuffer` -> `nsgif`).
    static let accepted: [String: String] = [
        "jpeg": "jpeg", "png": "png", "spng": "png", "webp": "webp", "nsgif": "gif", "gif": "gif",
        "heif": "heif", "jxl": "jxl", "tiff": "tiff",
    ]

    /// The loader family for a libvips loader type name, or `nil` if it is not accepted.
    static func family(ofLoader typeName: String) -> String? {
        var key = typeName.lowercased()
        if key.hasPrefix("vipsforeignload") { key.removeFirst("vipsforeignload".count) }
        if key.hasSuffix("buffer") { key.removeLast("buffer".count) }
        return accepted[key]
    }

    /// What a refused loader reads, in a user's words ("an SVG image", "a PDF document"): never
    /// libvips' type name.
    static func refusedFormat(ofLoader typeName: String) -> String {
        var key = typeName.lowercased()
        if key.hasPrefix("vipsforeignload") { key.removeFirst("vipsforeignload".count) }
        for suffix in ["buffer", "source", "file"] where key.hasSuffix(suffix) { key.removeLast(suffix.count) }
        let names: [String: String] = [
            "svg": "an SVG image", "pdf": "a PDF document", "magick": "an image only ImageMagick reads",
            "magick7": "an image only ImageMagick reads", "jp2k": "a JPEG 2000 image", "fits": "a FITS image",
            "openexr": "an OpenEXR image", "rad": "a Radiance HDR image", "ppm": "a PPM/PGM image",
            "csv": "a CSV file", "matrix": "a matrix file", "mat": "a MATLAB file", "analyze": "an Analyze image",
            "openslide": "a slide-scanner image", "vips": "a VIPS image", "webp": "a WebP image",
            "heif": "a HEIF image", "raw": "a raw camera image", "dcraw": "a raw camera image",
        ]
        return names[key] ?? "an image format (\(key.isEmpty ? "unknown" : key))"
    }

    /// The output format that matches a loader family. HEIF files are AVIF when their
    /// compression is AV1 and HEIC otherwise.
    static func format(ofFamily family: String, heifCompression: String?) -> ImageFormat? {
        switch family {
        case "jpeg": return .jpeg
        case "png": return .png
        case "webp": return .webp
        case "gif": return .gif
        case "jxl": return .jxl
        case "heif": return heifCompression == "av1" ? .avif : .heic
        default: return nil
        }
    }
}
