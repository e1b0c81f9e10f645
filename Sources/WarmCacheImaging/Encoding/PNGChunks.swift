import Foundation

/// Removes metadata chunks from a PNG file.
///
/// A PNG is an 8-byte signature followed by chunks: a big-endian 32-bit length, a four-letter
/// type, the payload and a CRC of type and payload. Removing a whole chunk leaves every other
/// chunk (and its CRC) valid, so the pixels are untouched.
enum PNGChunks {
    static let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]

    /// Text (`tEXt`, `zTXt`, `iTXt`, which also carry XMP), EXIF (`eXIf`) and the modification
    /// time (`tIME`), and the gamma and chromaticities (`gAMA`, `cHRM`), which libvips' decode
    /// ignores: without them every decoder shows the values libvips read, as in an encoded variant.
    static let metadataChunks: Set<String> = ["tEXt", "zTXt", "iTXt", "eXIf", "tIME", "gAMA", "cHRM"]

    /// The file without ``metadataChunks`` (and without `iCCP` unless `keepICCProfile`), ending at
    /// `IEND`; `nil` if it is not a well-formed PNG, or is an animated one (`acTL`: its frames
    /// are not the one libvips decodes).
    static func removingMetadata(from file: Data, keepICCProfile: Bool) -> Data? {
        let bytes = [UInt8](file)
        guard bytes.count >= 8, Array(bytes[0..<8]) == signature else { return nil }
        var output = signature
        var offset = 8
        while offset + 12 <= bytes.count {
            let length = Int(bytes[offset]) << 24 | Int(bytes[offset + 1]) << 16 | Int(bytes[offset + 2]) << 8
                | Int(bytes[offset + 3])
            let end = offset + 12 + length
            guard end <= bytes.count, let type = String(bytes: bytes[offset + 4..<offset + 8], encoding: .ascii)
            else { return nil }
            if type == "acTL" { return nil }
            let dropped = metadataChunks.contains(type) || (!keepICCProfile && type == "iCCP")
            if !dropped { output.append(contentsOf: bytes[offset..<end]) }
            if type == "IEND" { return Data(output) }
            offset = end
        }
        return nil
    }

    /// The bit depth of each sample (1, 2, 4, 8 or 16) from the header chunk, or `nil`.
    static func bitDepth(of file: Data) -> Int? {
        let bytes = [UInt8](file.prefix(25))
        guard bytes.count == 25, Array(bytes[0..<8]) == signature, Array(bytes[12..<16]) == Array("IHDR".utf8)
        else { return nil }
        return Int(bytes[24])
    }
}
