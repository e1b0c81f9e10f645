import Foundation

/// A compact stand-in for a source image, shown while the real image loads.
///
/// - `thumbHash`: the ThumbHash bytes (about 25 bytes; decodes to a tiny blurred image with alpha).
/// - `blurHash`: a BlurHash string.
/// - `averageColor`: the source's average colour.
///
/// A bundle stores whichever the manifest asked for; missing ones are `nil`.
public struct ImagePlaceholder: Hashable, Sendable, Codable {
    public var thumbHash: Data?
    public var blurHash: String?
    public var averageColor: RGBAColor?

    public init(thumbHash: Data? = nil, blurHash: String? = nil, averageColor: RGBAColor? = nil) {
        self.thumbHash = thumbHash
        self.blurHash = blurHash
        self.averageColor = averageColor
    }

    /// The ThumbHash as standard base64, the form most ThumbHash decoders take.
    public var thumbHashBase64: String? {
        thumbHash?.base64EncodedString()
    }

    public var isEmpty: Bool {
        thumbHash == nil && blurHash == nil && averageColor == nil
    }
}
