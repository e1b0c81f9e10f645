import Foundation
import WarmCache

/// One rendered variant: the spec it answers and the encoded bytes.
public struct EncodedVariant: Sendable, Hashable {
    public var spec: VariantSpec
    /// The true pixel size of the encoded image (what the index records).
    public var pixelWidth: Int
    public var pixelHeight: Int
    /// Whether the encoded image has an alpha channel.
    public var hasAlpha: Bool
    public var data: Data

    public init(spec: VariantSpec, pixelWidth: Int, pixelHeight: Int, hasAlpha: Bool, data: Data) {
        self.spec = spec
        self.pixelWidth = pixelWidth
        self.pixelHeight = pixelHeight
        self.hasAlpha = hasAlpha
        self.data = data
    }
}

/// The variants and placeholder of one source, rendered from a single decode.
public struct RenderedSource: Sendable, Hashable {
    /// In the order of the specs asked for.
    public var variants: [EncodedVariant]
    public var placeholder: ImagePlaceholder
}
