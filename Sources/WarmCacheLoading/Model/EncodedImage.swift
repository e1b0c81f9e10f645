import Foundation
import WarmCache

/// Encoded bytes handed to a decoder: a bundle's blob (a file, read in place) or a downloaded body.
///
/// ```swift
/// func decode(_ image: EncodedImage, maxPixelSize: Int) throws -> DecodedImage {
///     switch image.bytes {
///     case .file(let url): return try decodeFile(at: url, maxPixelSize: maxPixelSize)
///     case .data(let data): return try decodeData(data, maxPixelSize: maxPixelSize)
///     }
/// }
/// ```
public struct EncodedImage: Sendable {
    /// Where the bytes are.
    public enum Bytes: Sendable {
        /// A file to read (a bundle blob): a decoder that maps it reads only what it needs.
        case file(URL)
        /// Bytes in memory: a downloaded body, or a blob the bundle already holds in memory.
        case data(Data)
    }

    /// The bytes to decode.
    public let bytes: Bytes
    /// The encoded format, known for a bundle's blobs; `nil` for a network body (sniff it).
    public let format: ImageFormat?

    /// Encoded bytes of a known format, or of one to sniff (`format` `nil`).
    public init(bytes: Bytes, format: ImageFormat?) {
        self.bytes = bytes
        self.format = format
    }
}
