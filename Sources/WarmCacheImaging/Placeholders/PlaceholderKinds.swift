/// Which placeholders to compute for a source.
public struct PlaceholderKinds: OptionSet, Sendable, Hashable {
    public let rawValue: Int

    public init(rawValue: Int) {
        self.rawValue = rawValue
    }

    /// A ThumbHash (about 25 bytes; keeps aspect ratio and alpha).
    public static let thumbHash = PlaceholderKinds(rawValue: 1 << 0)
    /// A BlurHash string (4x3 components for landscape images, 3x4 for portrait ones).
    public static let blurHash = PlaceholderKinds(rawValue: 1 << 1)
    /// The average colour, blended in linear light.
    public static let averageColor = PlaceholderKinds(rawValue: 1 << 2)

    public static let all: PlaceholderKinds = [.thumbHash, .blurHash, .averageColor]
}
