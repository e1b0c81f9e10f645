import Foundation

/// Removes EXIF and XMP segments (APP1) from a JPEG file.
///
/// A JPEG is a sequence of marker segments (`FF xx`, then a big-endian length that counts
/// itself) up to the start-of-scan marker (`FF DA`), after which comes entropy-coded data that
/// is copied untouched. APP1 segments starting with `Exif\0\0` or the XMP namespace are dropped;
/// everything else, including the ICC profile (APP2), is kept. Input that is not a well-formed
/// JPEG is returned unchanged. ``removingMetadata(from:keepICCProfile:)`` keeps only what
/// decoding needs, for a source's own file stored as a variant.
enum JPEGSegments {
    static let exifSignature = Array("Exif\0\0".utf8)
    static let xmpSignature = Array("http://ns.adobe.com/xap/1.0/\0".utf8)

    static func removingEXIFAndXMP(from file: Data) -> Data {
        let bytes = [UInt8](file)
        guard bytes.count >= 4, bytes[0] == 0xFF, bytes[1] == 0xD8 else { return file }
        var output: [UInt8] = [0xFF, 0xD8]
        var offset = 2
        while offset + 4 <= bytes.count {
            guard bytes[offset] == 0xFF else { return file }
            let marker = bytes[offset + 1]
            if marker == 0xDA {
                output.append(contentsOf: bytes[offset...])
                return Data(output)
            }
            let length = Int(bytes[offset + 2]) << 8 | Int(bytes[offset + 3])
            let end = offset + 2 + length
            guard length >= 2, end <= bytes.count else { return file }
            let payload = bytes[(offset + 4)..<end]
            let isMetadata = marker == 0xE1
                && (payload.starts(with: exifSignature) || payload.starts(with: xmpSignature))
            if !isMetadata { output.append(contentsOf: bytes[offset..<end]) }
            offset = end
        }
        return file
    }

    /// The file with only what decoding needs, or `nil` if it is not a well-formed JPEG: of the
    /// application segments, JFIF (APP0), Adobe's colour transform (APP14) and, with
    /// `keepICCProfile`, the ICC profile (APP2 `ICC_PROFILE`) stay; EXIF, XMP (APP1), IPTC
    /// (APP13), multi-picture indexes and every other APPn go, with comments (COM) and whatever
    /// follows the end of the image (gain maps, secondary pictures). Pixels are untouched: the
    /// tables, frame header and entropy-coded scans are copied as they are.
    static func removingMetadata(from file: Data, keepICCProfile: Bool) -> Data? {
        let bytes = [UInt8](file)
        guard bytes.count >= 4, bytes[0] == 0xFF, bytes[1] == 0xD8 else { return nil }
        var output: [UInt8] = [0xFF, 0xD8]
        var offset = 2
        while offset + 4 <= bytes.count {
            guard bytes[offset] == 0xFF else { return nil }
            let marker = bytes[offset + 1]
            if marker == 0xDA {
                guard let end = endOfImage(bytes, from: offset) else { return nil }
                output.append(contentsOf: bytes[offset..<end])
                return Data(output)
            }
            let length = Int(bytes[offset + 2]) << 8 | Int(bytes[offset + 3])
            let end = offset + 2 + length
            guard length >= 2, end <= bytes.count else { return nil }
            let payload = bytes[(offset + 4)..<end]
            if keeps(marker, payload: payload, keepICCProfile: keepICCProfile) {
                output.append(contentsOf: bytes[offset..<end])
            }
            offset = end
        }
        return nil
    }

    static let iccSignature = Array("ICC_PROFILE\0".utf8)

    /// Whether a segment before the first scan is kept by ``removingMetadata(from:keepICCProfile:)``.
    private static func keeps(_ marker: UInt8, payload: ArraySlice<UInt8>, keepICCProfile: Bool) -> Bool {
        switch marker {
        case 0xE0, 0xEE: return true  // JFIF, Adobe (how the decoder reads the colour channels)
        case 0xE2: return keepICCProfile && payload.starts(with: iccSignature)
        case 0xE1, 0xE3...0xED, 0xEF, 0xFE: return false  // other application data, comments
        default: return true  // tables, frame header, restart interval
        }
    }

    /// The offset just past the end-of-image marker (`FF D9`) after the scan at `start`, or `nil`.
    /// Inside entropy-coded data a 0xFF byte is followed by 0x00 (a stuffed byte) or a restart
    /// marker; any other marker is a segment between scans (tables, the next scan's header of a
    /// progressive file), skipped by its length.
    private static func endOfImage(_ bytes: [UInt8], from start: Int) -> Int? {
        var offset = start
        while offset + 1 < bytes.count {
            guard bytes[offset] == 0xFF else { offset += 1; continue }
            let marker = bytes[offset + 1]
            switch marker {
            case 0xD9: return offset + 2
            case 0x00, 0xD0...0xD7, 0xFF: offset += 1
            default:
                guard offset + 4 <= bytes.count else { return nil }
                let length = Int(bytes[offset + 2]) << 8 | Int(bytes[offset + 3])
                guard length >= 2 else { return nil }
                offset += 2 + length
            }
        }
        return nil
    }

    /// The marker codes of the segments before the scan (`0xE1` for APP1, ...), for inspection.
    static func markers(of file: Data) -> [UInt8] {
        let bytes = [UInt8](file)
        var markers: [UInt8] = []
        var offset = 2
        while offset + 4 <= bytes.count, bytes[offset] == 0xFF, bytes[offset + 1] != 0xDA {
            markers.append(bytes[offset + 1])
            offset += 2 + (Int(bytes[offset + 2]) << 8 | Int(bytes[offset + 3]))
        }
        return markers
    }
}
