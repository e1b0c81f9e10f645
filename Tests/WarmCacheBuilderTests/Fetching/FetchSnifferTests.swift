import Foundation
import Testing

@testable import WarmCacheBuilder

@Suite("Fetch: format sniffing")
struct FetchSnifferTests {
    static func bytes(_ text: String) -> [UInt8] { Array(text.utf8) }

    /// An ISO-BMFF `ftyp` box with the given major and compatible brands.
    static func ftyp(_ major: String, _ compatible: [String]) -> [UInt8] {
        let size = 16 + 4 * compatible.count
        var box: [UInt8] = [0, 0, 0, UInt8(size)] + bytes("ftyp") + bytes(major) + [0, 0, 0, 0]
        for brand in compatible { box += bytes(brand) }
        return box + [0, 0, 0, 8] + bytes("meta")
    }

    static let cases: [([UInt8], SniffedFormat)] = [
        ([0xFF, 0xD8, 0xFF, 0xE0, 0, 0x10] + bytes("JFIF"), .jpeg),
        ([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 13], .png),
        (bytes("GIF89a") + [1, 0, 1, 0], .gif),
        (bytes("GIF87a") + [1, 0, 1, 0], .gif),
        (bytes("RIFF") + [0x24, 0, 0, 0] + bytes("WEBPVP8 "), .webp),
        (ftyp("avif", ["mif1", "miaf"]), .avif),
        (ftyp("mif1", ["avif", "miaf"]), .avif),
        (ftyp("heic", ["mif1", "heic"]), .heic),
        (ftyp("mif1", ["heic"]), .heic),
        ([0xFF, 0x0A, 0xFA, 0x7F], .jxl),
        ([0, 0, 0, 0x0C, 0x4A, 0x58, 0x4C, 0x20, 0x0D, 0x0A, 0x87, 0x0A], .jxl),
        ([0x49, 0x49, 0x2A, 0x00, 8, 0, 0, 0], .tiff),
        ([0x4D, 0x4D, 0x00, 0x2A, 0, 0, 0, 8], .tiff),
        (bytes("BM") + [0x46, 0, 0, 0, 0, 0, 0, 0, 0x36, 0, 0, 0, 40, 0, 0, 0, 1, 0, 0, 0], .bmp),
        (bytes(#"<svg xmlns="http://www.w3.org/2000/svg"/>"#), .svg),
        ([0xEF, 0xBB, 0xBF] + bytes("\n  <?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<!-- Made by hand -->\n<!DOCTYPE svg PUBLIC \"-//W3C//DTD SVG 1.1//EN\" \"x\">\n<svg width=\"1\"></svg>"), .svg),
        (bytes("<?xml version=\"1.0\"?><svg:svg xmlns:svg=\"http://www.w3.org/2000/svg\"/>"), .svg),
    ]

    @Test("Image signatures are recognised", arguments: cases)
    func recognises(_ bytes: [UInt8], _ format: SniffedFormat) {
        #expect(SniffedFormat(prefix: bytes) == format)
    }

    static let nonImages: [([UInt8], String)] = [
        ([], "empty body"),
        (bytes("<!DOCTYPE html>\n<html><body>Not found</body></html>"), "HTML page"),
        (bytes("  <html lang=\"en\"><head>"), "HTML page"),
        (bytes("<?xml version=\"1.0\"?>\n<!DOCTYPE html PUBLIC \"-//W3C//DTD XHTML 1.0 Strict//EN\" \"x\"><html/>"), "HTML page"),
        (bytes(#"{"error": "not found"}"#), "JSON document"),
        (bytes("<?xml version=\"1.0\"?><rss version=\"2.0\"></rss>"), "XML document (not SVG)"),
        (bytes("Access denied"), "text document"),
        (bytes("BMW is not a bitmap"), "text document"),
        (bytes("%PDF-1.7\n"), "PDF document"),
        ([0x1F, 0x8B, 8, 0], "gzip-compressed file"),
        (ftyp("isom", ["isom", "mp42"]), "ISO media file (brand isom)"),
        ([0, 1, 2, 3, 4, 5, 6, 7, 8], "unrecognised binary file (first bytes 00 01 02 03 04 05 06 07)"),
    ]

    @Test("Non-images are rejected and described", arguments: nonImages)
    func describes(_ bytes: [UInt8], _ description: String) {
        #expect(SniffedFormat(prefix: bytes) == nil)
        #expect(SniffedFormat.describeNonImage(prefix: bytes) == description)
    }

    @Test("Bundle formats map to ImageFormat; input-only formats do not")
    func imageFormatMapping() {
        #expect(SniffedFormat.jpeg.imageFormat == .jpeg)
        #expect(SniffedFormat.avif.imageFormat == .avif)
        #expect(SniffedFormat.tiff.imageFormat == nil)
        #expect(SniffedFormat.svg.imageFormat == nil)
    }
}
