/// An encoded image format a bundle can hold.
///
/// The raw value is the canonical token used in cache keys, in the index (`variants.format`)
/// and in manifests, so it never changes once published.
public enum ImageFormat: String, CaseIterable, Sendable, Codable, Hashable, Comparable {
    /// JPEG: decoded everywhere; no alpha. Blob extension `jpg`.
    case jpeg
    /// PNG: lossless, with alpha; decoded everywhere.
    case png
    /// WebP: lossy or lossless, with alpha. Apple platforms decode it from iOS 14, macOS 11,
    /// tvOS 14 and watchOS 7.
    case webp
    /// AVIF: AV1 stills, the smallest lossy files here, with alpha. Apple platforms decode it
    /// from iOS 16, macOS 13 and tvOS 16.
    case avif
    /// HEIC: HEVC stills, with alpha; decoded on Apple platforms (iOS 11, macOS 10.13).
    case heic
    /// JPEG XL, with alpha. Apple platforms decode it from iOS 17 and macOS 14.
    case jxl
    /// GIF: 256 colours at most, one-bit transparency; decoded everywhere.
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

    /// Orders formats by their token, so lists of them print and compare in a stable order. It is
    /// not a preference: lookups prefer formats in the order of their `accepting` list.
    public static func < (lhs: ImageFormat, rhs: ImageFormat) -> Bool {
        lhs.rawValue < rhs.rawValue
    }
}
