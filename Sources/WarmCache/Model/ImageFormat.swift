/// An encoded image format a bundle can hold.
///
/// The raw value is the canonical token used in cache keys, in the index (`variants.format`)
/// and in manifests, so it never changes once published.
public enum ImageFormat: String, CaseIterable, Sendable, Codable, Hashable, Comparable {
    case jpeg
    case png
    case webp
    case avif
    case heic
    case jxl
    case gif

    /// The usual file extension, used for blob file names in `objects/`.
    public var fileExtension: String {
        switch self {
        case .jpeg: return "jpg"
        default: return rawValue
        }
    }

    /// The MIME type apps and servers use for this format.
    public var mimeType: String {
        switch self {
        case .jpeg: return "image/jpeg"
        case .png: return "image/png"
        case .webp: return "image/webp"
        case .avif: return "image/avif"
        case .heic: return "image/heic"
        case .jxl: return "image/jxl"
        case .gif: return "image/gif"
        }
    }

    /// Whether the format can carry an alpha channel. JPEG cannot: an image with
    /// transparency (for example after rounding its corners) must not be written as JPEG.
    public var supportsAlpha: Bool {
        self != .jpeg
    }

    /// Parses a format token, accepting the common aliases `jpg`, `heif` and `jpegxl`.
    public init?(token: String) {
        switch token.lowercased() {
        case "jpg", "jpeg": self = .jpeg
        case "heif", "heic": self = .heic
        case "jxl", "jpegxl", "jpeg-xl": self = .jxl
        default:
            guard let format = ImageFormat(rawValue: token.lowercased()) else { return nil }
            self = format
        }
    }

    public static func < (lhs: ImageFormat, rhs: ImageFormat) -> Bool {
        lhs.rawValue < rhs.rawValue
    }
}
