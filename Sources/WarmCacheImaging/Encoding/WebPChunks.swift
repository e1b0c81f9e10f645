import Foundation

/// Removes metadata chunks from a WebP file (RIFF container).
///
/// A WebP file is `RIFF <size> WEBP` followed by chunks (`fourCC`, little-endian 32-bit size,
/// payload padded to an even length). The extended format starts with a `VP8X` chunk whose
/// first byte flags which optional chunks follow: ICC (0x20), EXIF (0x08), XMP (0x04).
///
/// Removing a chunk also clears its flag. When only a bare `VP8 `/`VP8L` bitstream remains,
/// the file is rewritten in the simple format, without `VP8X`. Input that is not a well-formed
/// WebP file is returned unchanged.
enum WebPChunks {
    /// One chunk: its four-character code and its payload.
    struct Chunk: Equatable {
        var fourCC: String
        var payload: Data
    }

    static let iccFlag: UInt8 = 0x20
    static let exifFlag: UInt8 = 0x08
    static let xmpFlag: UInt8 = 0x04

    static func removingMetadata(from file: Data, keepICCProfile: Bool) -> Data {
        guard var chunks = parse(file), let header = chunks.firstIndex(where: { $0.fourCC == "VP8X" }) else {
            return file
        }
        var removedFlags: UInt8 = exifFlag | xmpFlag
        if !keepICCProfile { removedFlags |= iccFlag }
        chunks.removeAll { chunk in
            chunk.fourCC == "EXIF" || chunk.fourCC == "XMP " || (!keepICCProfile && chunk.fourCC == "ICCP")
        }
        var extended = chunks[header]
        guard !extended.payload.isEmpty else { return file }
        extended.payload[extended.payload.startIndex] &= ~removedFlags
        chunks[header] = extended

        let rest = chunks.filter { $0.fourCC != "VP8X" }
        if rest.count == 1, rest[0].fourCC == "VP8 " || rest[0].fourCC == "VP8L" {
            return serialise(rest)
        }
        return serialise(chunks)
    }

    /// The chunks of a WebP file, or `nil` if it is not one.
    static func parse(_ file: Data) -> [Chunk]? {
        let bytes = [UInt8](file)
        guard bytes.count >= 12, bytes[0..<4] == [0x52, 0x49, 0x46, 0x46], bytes[8..<12] == [0x57, 0x45, 0x42, 0x50]
        else { return nil }
        var chunks: [Chunk] = []
        var offset = 12
        while offset + 8 <= bytes.count {
            let size = Int(bytes[offset + 4]) | Int(bytes[offset + 5]) << 8 | Int(bytes[offset + 6]) << 16
                | Int(bytes[offset + 7]) << 24
            let start = offset + 8
            guard start + size <= bytes.count,
                  let fourCC = String(bytes: bytes[offset..<offset + 4], encoding: .ascii) else { return nil }
            chunks.append(Chunk(fourCC: fourCC, payload: Data(bytes[start..<start + size])))
            offset = start + size + (size & 1)
        }
        return offset == bytes.count ? chunks : nil
    }

    static func serialise(_ chunks: [Chunk]) -> Data {
        var body = Data("WEBP".utf8)
        for chunk in chunks {
            body.append(contentsOf: Array(chunk.fourCC.utf8))
            body.append(littleEndian: UInt32(chunk.payload.count))
            body.append(chunk.payload)
            if chunk.payload.count & 1 == 1 { body.append(0) }
        }
        var file = Data("RIFF".utf8)
        file.append(littleEndian: UInt32(body.count))
        file.append(body)
        return file
    }
}

extension Data {
    mutating func append(littleEndian value: UInt32) {
        append(contentsOf: [UInt8(value & 0xff), UInt8(value >> 8 & 0xff), UInt8(value >> 16 & 0xff),
                            UInt8(value >> 24 & 0xff)])
    }
}
