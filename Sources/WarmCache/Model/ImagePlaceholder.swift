import Foundation

/// A compact stand-in for a source image, shown while the real image loads.
///
/// - `thumbHash`: the ThumbHash bytes (about 25 bytes; decodes to a tiny blurred image with alpha).
/// - `blurHash`: a BlurHash string.
/// - `averageColor`: the source's average colour.
///
/// A bundle stores whichever the manifest asked for; missing ones are `nil`.
public struct ImagePlaceholder: Hashable, Sendable, Codable {
    /// The ThumbHash bytes (about 25), if the manifest asked for `thumbhash`; decode with
    /// ``ThumbHash/decode(_:width:height:)`` or ``pixels(width:height:)``.
    public var thumbHash: Data?
    /// The BlurHash string, if the manifest asked for `blurhash`; decode with
    /// ``BlurHash/decode(_:width:height:punch:)`` or ``pixels(width:height:)``.
    public var blurHash: String?
    /// The source's average colour, always stored by the builder: a flat fill while the image loads.
    public var averageColor: RGBAColor?

    /// A placeholder from what is known; the bundle reader builds these from the index.
    public init(thumbHash: Data? = nil, blurHash: String? = nil, averageColor: RGBAColor? = nil) {
        self.thumbHash = thumbHash
        self.blurHash = blurHash
        self.averageColor = averageColor
    }

    /// The ThumbHash as standard base64, the form most ThumbHash decoders take.
    public var thumbHashBase64: String? {
        thumbHash?.base64EncodedString()
    }

    /// Whether it holds nothing at all (no ThumbHash, BlurHash or average colour).
    public var isEmpty: Bool {
        thumbHash == nil && blurHash == nil && averageColor == nil
    }
}
