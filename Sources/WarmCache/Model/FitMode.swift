/// How a source image is sized into a variant's box.
///
/// | mode | result |
/// |---|---|
/// | `inside` | scaled to fit within the box, aspect kept; one side may be shorter |
/// | `cover(gravity)` | scaled to fill the box, aspect kept, overflow cropped around `gravity` |
/// | `fill` | stretched to exactly the box, aspect ignored |
/// | `contain(background)` | fitted inside, then padded to exactly the box with `background` |
///
/// Whatever the mode, images are never upscaled unless the variant allows it
/// (``VariantSpec/allowUpscale``); the index records the pixel size actually produced.
public enum FitMode: Hashable, Sendable, Codable {
    /// Scaled to fit within the box, aspect ratio kept; one side may be shorter than the box.
    case inside
    /// Scaled to fill the box, aspect ratio kept; what overflows is cropped, keeping the part the
    /// gravity names.
    case cover(CropGravity)
    /// Stretched to exactly the box; the aspect ratio is not kept.
    case fill
    /// Fitted inside the box, then padded to exactly the box with `background`.
    case contain(background: RGBAColor)

    /// The mode without its parameter: what a reader filters on.
    public var kind: Kind {
        switch self {
        case .inside: return .inside
        case .cover: return .cover
        case .fill: return .fill
        case .contain: return .contain
        }
    }

    /// The parameter-free family of a ``FitMode``.
    public enum Kind: String, CaseIterable, Sendable, Codable, Hashable {
        /// ``FitMode/inside``.
        case inside
        /// ``FitMode/cover(_:)``, whatever the gravity.
        case cover
        /// ``FitMode/fill``.
        case fill
        /// ``FitMode/contain(background:)``, whatever the background.
        case contain
    }

    /// The crop gravity of a `cover` fit, `nil` otherwise.
    public var gravity: CropGravity? {
        if case .cover(let gravity) = self { return gravity }
        return nil
    }

    /// The padding colour of a `contain` fit, `nil` otherwise.
    public var background: RGBAColor? {
        if case .contain(let background) = self { return background }
        return nil
    }

    /// Canonical token used in cache keys: `inside`, `fill`, `cover-<gravity>`, `contain-<hex colour>`.
    package var token: String {
        switch self {
        case .inside: return "inside"
        case .fill: return "fill"
        case .cover(let gravity): return "cover-" + gravity.rawValue
        case .contain(let background): return "contain-" + background.hex
        }
    }

    /// Parses a ``token``.
    package init?(token: String) {
        switch token {
        case "inside": self = .inside
        case "fill": self = .fill
        default:
            if token.hasPrefix("cover-"), let gravity = CropGravity(rawValue: String(token.dropFirst(6))) {
                self = .cover(gravity)
            } else if token.hasPrefix("contain-"), let colour = RGBAColor(hex: String(token.dropFirst(8))),
                      colour.hex == String(token.dropFirst(8)) {
                self = .contain(background: colour)
            } else {
                return nil
            }
        }
    }
}

/// Where a `cover` crop keeps the image. `attention` and `entropy` are libvips' smart crops.
public enum CropGravity: String, CaseIterable, Sendable, Codable, Hashable {
    /// Keeps the centre.
    case centre
    /// Keeps the top edge.
    case north
    /// Keeps the bottom edge.
    case south
    /// Keeps the right edge.
    case east
    /// Keeps the left edge.
    case west
    /// Keeps the top-right corner.
    case northeast
    /// Keeps the top-left corner.
    case northwest
    /// Keeps the bottom-right corner.
    case southeast
    /// Keeps the bottom-left corner.
    case southwest
    /// Keeps the region most likely to draw the eye (skin tones, saturated colour, edges):
    /// libvips' `attention` smart crop; the manifest also calls it `smart`.
    case attention
    /// Keeps the region with the most detail (highest entropy): libvips' `entropy` smart crop.
    case entropy

    /// Parses a gravity name, accepting `center` and `top`/`bottom`/`left`/`right` aliases.
    package init?(name: String) {
        switch name.lowercased() {
        case "center", "centre": self = .centre
        case "top": self = .north
        case "bottom": self = .south
        case "left": self = .west
        case "right": self = .east
        case "smart": self = .attention
        default:
            guard let gravity = CropGravity(rawValue: name.lowercased()) else { return nil }
            self = gravity
        }
    }
}
