import Foundation
import WarmCache

/// Encoded-image headers for tests: bytes whose pixel size a decoder can read, and the reading.
public enum StandInImages {
    /// A PNG signature and `IHDR` chunk stating `width` × `height` (8-bit RGBA), then `filler`
    /// bytes: what the stand-in decoder reads the size of. Not a whole PNG (no pixel data).
    public static func png(width: Int, height: Int, filler: Int = 64) -> Data {
        var bytes = FixtureBytes.pngSignature
        bytes += [0, 0, 0, 13] + Array("IHDR".utf8)
        bytes += bigEndian(UInt32(width)) + bigEndian(UInt32(height)) + [8, 6, 0, 0, 0]
        bytes += [0, 0, 0, 0]  // CRC, unchecked
        bytes += FixtureBytes.fakePNG(count: filler, seed: UInt64(width * 31 + height)).dropFirst(8)
        return Data(bytes)
    }

    /// The pixel size a PNG's `IHDR` or a baseline/progressive JPEG's start-of-frame states.
    public static func pixelSize(of data: Data) -> PixelSize? {
        let bytes = [UInt8](data.prefix(65_536))
        if bytes.starts(with: FixtureBytes.pngSignature), bytes.count >= 24, Array(bytes[12..<16]) == Array("IHDR".utf8) {
            return PixelSize(width: Int(readUInt32(bytes, 16)), height: Int(readUInt32(bytes, 20)))
        }
        if bytes.starts(with: [0xFF, 0xD8]) { return jpegFrameSize(bytes) }
        return nil
    }

    /// Walks the JPEG markers to the first SOF0–SOF15 (not DHT, JPG or DAC) and reads its size.
    private static func jpegFrameSize(_ bytes: [UInt8]) -> PixelSize? {
        var index = 2
        while index + 9 < bytes.count {
            guard bytes[index] == 0xFF else { return nil }
            let marker = bytes[index + 1]
            let length = Int(bytes[index + 2]) << 8 | Int(bytes[index + 3])
            if (0xC0...0xCF).contains(marker), ![0xC4, 0xC8, 0xCC].contains(marker) {
                let height = Int(bytes[index + 5]) << 8 | Int(bytes[index + 6])
                let width = Int(bytes[index + 7]) << 8 | Int(bytes[index + 8])
                return PixelSize(width: width, height: height)
            }
            index += 2 + length
        }
        return nil
    }

    private static func bigEndian(_ value: UInt32) -> [UInt8] {
        [UInt8(value >> 24), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)]
    }

    private static func readUInt32(_ bytes: [UInt8], _ at: Int) -> UInt32 {
        UInt32(bytes[at]) << 24 | UInt32(bytes[at + 1]) << 16 | UInt32(bytes[at + 2]) << 8 | UInt32(bytes[at + 3])
    }
}
