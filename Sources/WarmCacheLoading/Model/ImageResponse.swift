/// Where an image came from.
public enum ImageOrigin: Sendable, Hashable {
    /// The decoded-image cache: no decode, no read.
    case memory
    /// The bundle, decoded at the view's size.
    case bundle
    /// The network (or the HTTP cache of the loader's session), decoded at the view's size.
    case network
}

/// An image the loader answered with, and where it came from.
///
/// ```swift
/// let response = try await loader.image(for: request)
/// if response.origin != .memory { fadeIn(response.image) }
/// ```
public struct ImageResponse: Sendable {
    /// The decoded bitmap.
    public let image: DecodedImage
    /// The source that answered.
    public let origin: ImageOrigin

    /// An image from `origin`.
    public init(image: DecodedImage, origin: ImageOrigin) {
        self.image = image
        self.origin = origin
    }
}
