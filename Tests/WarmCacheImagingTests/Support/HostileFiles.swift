import Foundation

/// Hand-made hostile inputs.
enum HostileFiles {
    /// A PNG that declares `width x height` pixels but holds only a few bytes of data: its
    /// header is valid (correct CRCs), so only a pixel limit stops a decoder from allocating.
    static func pngBomb(width: UInt32, height: UInt32) -> Data {
        var file = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
        var header = Data()
        header.appendBigEndian(width)
        header.appendBigEndian(height)
        header.append(contentsOf: [8, 2, 0, 0, 0])  // 8-bit RGB, deflate, no filter, no interlace
        file.appendChunk("IHDR", header)
        file.appendChunk("IDAT", Data([0x78, 0x9C, 0x63, 0x60, 0x00, 0x00, 0x00, 0x02, 0x00, 0x01]))
        file.appendChunk("IEND", Data())
        return file
    }

    /// A 43-byte GIF whose single frame claims 65535 x 65535 pixels.
    static let gifBomb = Data([
        0x47, 0x49, 0x46, 0x38, 0x39, 0x61, 0xFF, 0xFF, 0xFF, 0xFF, 0x00, 0x00, 0x00,  // header, screen
        0x2C, 0x00, 0x00, 0x00, 0x00, 0xFF, 0xFF, 0xFF, 0xFF, 0x00,  // image descriptor
        0x02, 0x02, 0x44, 0x01, 0x00,  // LZW data
        0x21, 0xFE, 0x09, 0x57, 0x61, 0x72, 0x6D, 0x43, 0x61, 0x63, 0x68, 0x65, 0x21, 0x00,  // comment
        0x3B,
    ])

    /// CRC-32 (ISO-HDLC), as PNG chunks use.
    static func crc32(_ bytes: Data) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
        }
        return ~crc
    }
}

extension Data {
    mutating func appendBigEndian(_ value: UInt32) {
        append(contentsOf: [UInt8(value >> 24), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)])
    }

    mutating func appendChunk(_ type: String, _ payload: Data) {
        appendBigEndian(UInt32(payload.count))
        let body = Data(type.utf8) + payload
        append(body)
        appendBigEndian(HostileFiles.crc32(body))
    }
}
