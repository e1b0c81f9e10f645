/// Which compact placeholders a source gets (see `ImagePlaceholder`).
///
/// The average colour is always included: it costs four bytes and no extra decode, so apps can
/// always paint something. The manifest's `placeholder` key picks the hashes on top of it.
public struct PlaceholderKinds: OptionSet, Hashable, Sendable, Encodable, CustomStringConvertible {
    public let rawValue: Int

    public init(rawValue: Int) {
        self.rawValue = rawValue
    }

    public static let averageColor = PlaceholderKinds(rawValue: 1 << 0)
    public static let thumbHash = PlaceholderKinds(rawValue: 1 << 1)
    public static let blurHash = PlaceholderKinds(rawValue: 1 << 2)

    /// Manifest spellings, in canonical order. `none` (no hashes) is handled by the parser.
    static let names: [(name: String, kind: PlaceholderKinds)] = [
        ("average", .averageColor), ("thumbhash", .thumbHash), ("blurhash", .blurHash),
    ]

    /// The manifest names of the included kinds, e.g. `["average", "thumbhash"]`.
    public var manifestNames: [String] {
        Self.names.filter { contains($0.kind) }.map(\.name)
    }

    public var description: String { manifestNames.joined(separator: "+") }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(manifestNames)
    }
}
