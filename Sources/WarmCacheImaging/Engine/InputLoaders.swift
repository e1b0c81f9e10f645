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
