import Foundation

/// Names a decoded image in the ``DecodedImageCache``: which encoded bytes, decoded at which size.
///
/// A bundle's blob is named by its SHA-256, so two URLs (or two bundle layers) that share bytes
/// share their decodes; a downloaded body by its URL.
public struct DecodedImageKey: Hashable, Sendable, CustomStringConvertible {
    /// The encoded bytes a decode came from.
    public enum Bytes: Hashable, Sendable {
        /// A bundle blob, by its lowercase hex SHA-256.
        case blob(sha256: String)
        /// A body downloaded from this URL.
        case url(URL)
    }

    /// Which bytes.
    public let bytes: Bytes
    /// The longest side the decode was asked for, in pixels (`0`: full size).
    public let maxPixelSize: Int

    /// The key of `bytes` decoded at `maxPixelSize`.
    public init(bytes: Bytes, maxPixelSize: Int) {
        self.bytes = bytes
        self.maxPixelSize = maxPixelSize
    }

    /// `blob:<sha256>@<size>` or `<url>@<size>` (`full` for 0), for logs.
    public var description: String {
        let size = maxPixelSize == 0 ? "full" : "\(maxPixelSize)px"
        switch bytes {
        case .blob(let sha256): return "blob:\(sha256)@\(size)"
        case .url(let url): return "\(url.absoluteString)@\(size)"
        }
    }
}
