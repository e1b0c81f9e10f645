/// Which compact placeholders to compute for a source (see `ImagePlaceholder`).
///
/// The manifest always includes the average colour: it costs four bytes and no extra decode, so
/// apps can always paint something. Its `placeholder` key picks the hashes on top of it.
public struct PlaceholderKinds: OptionSet, Sendable, Hashable, Encodable, CustomStringConvertible {
    public let rawValue: Int

    public init(rawValue: Int) {
        self.rawValue = rawValue
    }

    /// The average colour, blended in linear light.
    public static let averageColor = PlaceholderKinds(rawValue: 1 << 0)
    /// A ThumbHash (about 25 bytes; keeps aspect ratio and alpha).
    public static let thumbHash = PlaceholderKinds(rawValue: 1 << 1)
    /// A BlurHash string (4x3 components for landscape images, 3x4 for portrait ones).
    public static let blurHash = PlaceholderKinds(rawValue: 1 << 2)

    public static let all: PlaceholderKinds = [.thumbHash, .blurHash, .averageColor]

    /// Manifest spellings, in canonical order. `none` (no hashes) is handled by the manifest parser.
    public static let names: [(name: String, kind: PlaceholderKinds)] = [
        ("average", .averageColor), ("thumbhash", .thumbHash), ("blurhash", .blurHash),
    ]

    /// The manifest names of the included kinds, e.g. `["average", "thumbhash"]`.
    public var manifestNames: [String] {
        Self.names.filter { contains($0.kind) }.map(\.name)
    }

    public var description: String { manifestNames.joined(separator: "+") }

    public func encode(to encoder: any Swift.Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(manifestNames)
    }
}
