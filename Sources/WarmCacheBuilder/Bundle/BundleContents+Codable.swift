import Foundation
import WarmCache

// How a rendered source and its variants are remembered between runs (the render memo).
// Keys are written as their canonical text and parsed back; a record that no longer parses
// fails to decode, which only costs a re-render.

extension BundleContents.Source: Codable {
    private enum CodingKeys: String, CodingKey {
        case identifier, contentSHA256, format, pixelWidth, pixelHeight, byteCount, placeholder
    }

    public init(from decoder: Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(identifier: SourceIdentifier(verbatim: try container.decode(String.self, forKey: .identifier)),
                  contentSHA256: try container.decode(String.self, forKey: .contentSHA256),
                  format: try container.decode(String.self, forKey: .format),
                  pixelSize: PixelSize(width: try container.decode(Int.self, forKey: .pixelWidth),
                                       height: try container.decode(Int.self, forKey: .pixelHeight)),
                  byteCount: try container.decode(Int.self, forKey: .byteCount),
                  placeholder: try container.decodeIfPresent(ImagePlaceholder.self, forKey: .placeholder))
    }

    public func encode(to encoder: Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(identifier.rawValue, forKey: .identifier)
        try container.encode(contentSHA256, forKey: .contentSHA256)
        try container.encode(format, forKey: .format)
        try container.encode(pixelSize.width, forKey: .pixelWidth)
        try container.encode(pixelSize.height, forKey: .pixelHeight)
        try container.encode(byteCount, forKey: .byteCount)
        try container.encodeIfPresent(placeholder, forKey: .placeholder)
    }
}

/// Presets are not encoded: they name the variant in the manifest and do not change its bytes,
/// so a decoded variant has none until the plan supplies them.
extension BundleContents.Variant: Codable {
    private enum CodingKeys: String, CodingKey {
        case key, pixelWidth, pixelHeight, byteCount, blobSHA256, hasAlpha
    }

    public init(from decoder: Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let text = try container.decode(String.self, forKey: .key)
        guard let key = VariantKey(parsing: text) else {
            throw DecodingError.dataCorruptedError(forKey: .key, in: container,
                                                   debugDescription: "not a variant key: \(text)")
        }
        self.init(key: key,
                  pixelSize: PixelSize(width: try container.decode(Int.self, forKey: .pixelWidth),
                                       height: try container.decode(Int.self, forKey: .pixelHeight)),
                  byteCount: try container.decode(Int.self, forKey: .byteCount),
                  blobSHA256: try container.decode(String.self, forKey: .blobSHA256),
                  hasAlpha: try container.decode(Bool.self, forKey: .hasAlpha))
    }

    public func encode(to encoder: Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(key.rawValue, forKey: .key)
        try container.encode(pixelSize.width, forKey: .pixelWidth)
        try container.encode(pixelSize.height, forKey: .pixelHeight)
        try container.encode(byteCount, forKey: .byteCount)
        try container.encode(blobSHA256, forKey: .blobSHA256)
        try container.encode(hasAlpha, forKey: .hasAlpha)
    }
}
