import Foundation

/// Removes EXIF and XMP segments (APP1) from a JPEG file.
///
/// A JPEG is a sequence of marker segments (`FF xx`, then a big-endian length that counts
/// itself) up to the start-of-scan marker (`FF DA`), after which comes entropy-coded data that
/// is copied untouched. APP1 segments starting with `Exif\0\0` or the XMP namespace are dropped;
/// everything else, including the ICC profile (APP2), is kept. Input that is not a well-formed
/// JPEG is returned unchanged.
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
