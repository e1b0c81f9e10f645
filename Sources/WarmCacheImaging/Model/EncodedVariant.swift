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
    /// For a spec with a quality target: the encoder quality found and the score it reached.
    public var perceptual: PerceptualEncoding?

    public init(spec: VariantSpec, pixelWidth: Int, pixelHeight: Int, hasAlpha: Bool, data: Data,
                perceptual: PerceptualEncoding? = nil) {
        self.spec = spec
        self.pixelWidth = pixelWidth
        self.pixelHeight = pixelHeight
        self.hasAlpha = hasAlpha
        self.data = data
        self.perceptual = perceptual
    }
}

/// What encoding a variant at a quality target found: the setting used and the score it got.
/// A variant whose format cannot reach the target even at its best setting keeps that setting,
/// and ``score`` is below the target (the builder warns). A variant that stores the source's own
/// file (``sourceKept``) has no encoder setting and scores 100: its pixels are the source's.
public struct PerceptualEncoding: Sendable, Hashable, Codable {
    /// The encoder quality (1–100) of the kept encoding; `nil` when the source's file was kept.
    public var quality: Int?
    /// Its SSIMULACRA2 score against the variant's unencoded pixels, to two decimals.
    public var score: Double

    public init(quality: Int?, score: Double) {
        self.quality = quality
        self.score = (score * 100).rounded() / 100
    }

    /// The record of a variant stored as the source's own file (metadata removed): no encoder
    /// ran, and its decoded pixels are the source's decode.
    public static let sourceKept = PerceptualEncoding(quality: nil, score: 100)
}

/// The variants and placeholder of one source, rendered from a single decode.
public struct RenderedSource: Sendable, Hashable {
    /// In the order of the specs asked for.
    public var variants: [EncodedVariant]
    public var placeholder: ImagePlaceholder
}
