import WarmCache

/// An image format recognised from a file's first bytes ("magic numbers").
///
/// Servers often get `Content-Type` wrong (`application/octet-stream`, `text/plain`, or a
/// soft-404 HTML page served with `200 OK`), so the fetcher trusts the bytes instead.
/// This covers every format libvips can decode for WarmCache, plus SVG (text).
public enum SniffedFormat: String, Sendable, Codable, Hashable, CaseIterable {
    case jpeg, png, gif, webp, avif, heic, jxl, tiff, bmp, svg

    /// The matching bundle format, for formats a bundle can also *store*; `nil` for
    /// TIFF, BMP and SVG, which are accepted as input only.
    public var imageFormat: ImageFormat? {
        switch self {
        case .jpeg: return .jpeg
        case .png: return .png
        case .gif: return .gif
        case .webp: return .webp
        case .avif: return .avif
        case .heic: return .heic
        case .jxl: return .jxl
        case .tiff, .bmp, .svg: return nil
        }
    }

    /// How many leading bytes the sniffer looks at. Binary signatures need a few dozen;
    /// the rest is room for an SVG's XML declaration, comments and doctype.
    public static let sniffLength = 4096

    /// Recognises the format of a body from its first bytes (up to ``sniffLength`` are
    /// used), or returns `nil` if they are not an image this package reads.
    public init?(prefix: [UInt8]) {
        let bytes = Array(prefix.prefix(Self.sniffLength))
        if let binary = Self.binarySignature(bytes) {
            self = binary
        } else if TextSniffer(bytes).kind == .svg {
            self = .svg
        } else {
            return nil
        }
    }

    /// A short human description of bytes that are not an image, for error messages:
    /// "HTML page", "JSON document", "empty body", ….
    public static func describeNonImage(prefix: [UInt8]) -> String {
        let bytes = Array(prefix.prefix(sniffLength))
        if bytes.isEmpty { return "empty body" }
        if bytes.starts(with: Array("%PDF-".utf8)) { return "PDF document" }
        if bytes.starts(with: [0x1F, 0x8B]) { return "gzip-compressed file" }
        if bytes.starts(with: [0x50, 0x4B, 0x03, 0x04]) { return "ZIP archive" }
        if let brand = isoMediaBrands(bytes)?.first { return "ISO media file (brand \(brand))" }
        switch TextSniffer(bytes).kind {
        case .html: return "HTML page"
        case .json: return "JSON document"
        case .xml: return "XML document (not SVG)"
        case .text: return "text document"
        case .svg: return "SVG image"
        case .binary:
            let hex = bytes.prefix(8).map { byte in
                let digits = String(byte, radix: 16)
                return digits.count == 1 ? "0" + digits : digits
            }
            return "unrecognised binary file (first bytes \(hex.joined(separator: " ")))"
        }
    }

    // MARK: Binary signatures

    private static func binarySignature(_ bytes: [UInt8]) -> SniffedFormat? {
        func starts(_ signature: [UInt8]) -> Bool { bytes.starts(with: signature) }
        if starts([0xFF, 0xD8, 0xFF]) { return .jpeg }
        if starts([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) { return .png }
        if starts(Array("GIF87a".utf8)) || starts(Array("GIF89a".utf8)) { return .gif }
        if bytes.count >= 12, starts(Array("RIFF".utf8)), Array(bytes[8..<12]) == Array("WEBP".utf8) {
            return .webp
        }
        // JPEG XL: a bare codestream, or the ISO-BMFF-style container's signature box.
        if starts([0xFF, 0x0A]) { return .jxl }
        if starts([0x00, 0x00, 0x00, 0x0C, 0x4A, 0x58, 0x4C, 0x20, 0x0D, 0x0A, 0x87, 0x0A]) { return .jxl }
        // TIFF (and BigTIFF), little- and big-endian.
        if starts([0x49, 0x49, 0x2A, 0x00]) || starts([0x4D, 0x4D, 0x00, 0x2A]) { return .tiff }
        if starts([0x49, 0x49, 0x2B, 0x00]) || starts([0x4D, 0x4D, 0x00, 0x2B]) { return .tiff }
        if isBMP(bytes) { return .bmp }
        if let brands = isoMediaBrands(bytes) { return heifFamily(brands) }
        return nil
    }

    /// "BM" alone is too weak (plenty of text starts with it): also require one of the
    /// known DIB header sizes at offset 14.
    private static func isBMP(_ bytes: [UInt8]) -> Bool {
        guard bytes.count >= 18, bytes[0] == 0x42, bytes[1] == 0x4D else { return false }
        let dibSize = UInt32(bytes[14]) | UInt32(bytes[15]) << 8 | UInt32(bytes[16]) << 16 | UInt32(bytes[17]) << 24
        return [12, 16, 40, 52, 56, 64, 108, 124].contains(dibSize)
    }

    /// The major and compatible brands of an ISO base media file (`....ftyp` box), the
    /// container of AVIF and HEIC (and of MP4 video, which is why brands matter).
    private static func isoMediaBrands(_ bytes: [UInt8]) -> [String]? {
        guard bytes.count >= 12, Array(bytes[4..<8]) == Array("ftyp".utf8) else { return nil }
        let boxSize = Int(bytes[0]) << 24 | Int(bytes[1]) << 16 | Int(bytes[2]) << 8 | Int(bytes[3])
        let end = min(max(boxSize, 12), bytes.count)
        var brands = [String(decoding: bytes[8..<12], as: UTF8.self)]
        var offset = 16  // after the major brand and the 4-byte minor version
        while offset + 4 <= end {
            brands.append(String(decoding: bytes[offset..<offset + 4], as: UTF8.self))
            offset += 4
        }
        return brands
    }

    /// AVIF files usually also list the generic HEIF brand `mif1`, so AVIF wins when both appear.
    private static func heifFamily(_ brands: [String]) -> SniffedFormat? {
        if brands.contains(where: { $0 == "avif" || $0 == "avis" }) { return .avif }
        let heif: Set<String> = ["heic", "heix", "heim", "heis", "hevc", "hevx", "mif1", "msf1"]
        if brands.contains(where: heif.contains) { return .heic }
        return nil
    }
}
