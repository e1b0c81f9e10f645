import Foundation
import Testing
import WarmCache
@testable import WarmCacheImaging

/// AVIF and HEIC files say which colours their pixels are (ISO/IEC 23008-12 `colr` box, type
/// `nclx`): sRGB primaries, the sRGB transfer curve, BT.601 coefficients, full range. Apple's
/// decoders then show the colours the source had instead of guessing.
@Suite("Colours signalled in AVIF and HEIC")
struct ColourSignallingTests {
    /// The contents (after size and type) of every item property box of this type in a HEIF file.
    static func properties(_ type: String, in file: Data) -> [[UInt8]] {
        let bytes = [UInt8](file)
        func u32(_ at: Int) -> Int { bytes[at..<at + 4].reduce(0) { $0 << 8 | Int($1) } }
        var found: [[UInt8]] = []
        func walk(_ start: Int, _ end: Int) {
            var offset = start
            while offset + 8 <= end {
                let size = u32(offset), name = String(decoding: bytes[offset + 4..<offset + 8], as: UTF8.self)
                guard size >= 8, offset + size <= end else { return }
                switch name {
                case "meta": walk(offset + 12, offset + size)  // a full box: version and flags first
                case "iprp", "ipco": walk(offset + 8, offset + size)
                case type: found.append(Array(bytes[offset + 8..<offset + size]))
                default: break
                }
                offset += size
            }
        }
        walk(0, bytes.count)
        return found
    }

    /// primaries, transfer, matrix and the full-range bit of every `nclx` colr box in `file`.
    static func nclxBoxes(in file: Data) -> [[Int]] {
        properties("colr", in: file).filter { $0.count >= 11 && String(decoding: $0[0..<4], as: UTF8.self) == "nclx" }.map {
            [Int($0[4]) << 8 | Int($0[5]), Int($0[6]) << 8 | Int($0[7]), Int($0[8]) << 8 | Int($0[9]), Int($0[10] >> 7)]
        }
    }

    @Test("every AVIF and HEIC says sRGB, BT.601, full range", arguments: [ImageFormat.avif, .heic])
    func srgbSignalled(format: ImageFormat) throws {
        for alpha in [false, true] {
            let data = try Fixtures.encode(Fixtures.gradient(width: 64, height: 48, alpha: alpha), as: format, quality: 60)
            #expect(Self.nclxBoxes(in: data) == [[1, 13, 6, 1]], "\(format), alpha: \(alpha)")
            let decoded = try Fixtures.decode(data)
            #expect(decoded.size == PixelSize(width: 64, height: 48) && decoded.hasAlpha == alpha)
        }
    }

    @Test("the colours come back as they went in")
    func coloursKept() throws {
        let image = Fixtures.image(width: 32, height: 32, bands: 3) { _, _ in [200, 60, 30] }
        let decoded = try Fixtures.decode(try Fixtures.encode(image, as: .avif, quality: 90))
        #expect(Check.close(Fixtures.pixel(decoded, 16, 16), [200, 60, 30], tolerance: 4))
    }
}
