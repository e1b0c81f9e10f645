/// An 8-bit sRGB colour with alpha, written canonically as lowercase hex:
/// `rrggbb` when opaque, `rrggbbaa` otherwise.
public struct RGBAColor: Hashable, Sendable, Codable, CustomStringConvertible {
    /// Red, 0–255, sRGB-encoded (not linear).
    public var red: UInt8
    /// Green, 0–255, sRGB-encoded (not linear).
    public var green: UInt8
    /// Blue, 0–255, sRGB-encoded (not linear).
    public var blue: UInt8
    /// Opacity, 0 (transparent) to 255 (opaque); not premultiplied into the colour.
    public var alpha: UInt8

    /// A colour from its components; opaque unless `alpha` says otherwise.
    public init(red: UInt8, green: UInt8, blue: UInt8, alpha: UInt8 = 255) {
        self.red = red
        self.green = green
        self.blue = blue
        self.alpha = alpha
    }

    /// Opaque white, `ffffff`.
    public static let white = RGBAColor(red: 255, green: 255, blue: 255)
    /// Opaque black, `000000`.
    public static let black = RGBAColor(red: 0, green: 0, blue: 0)
    /// Fully transparent black, `00000000`: what `contain` pads with when asked for `transparent`.
    public static let transparent = RGBAColor(red: 0, green: 0, blue: 0, alpha: 0)

    /// Parses `#rgb`, `rgb`, `rrggbb` or `rrggbbaa` (a leading `#` is optional), or the word `transparent`.
    public init?(hex: String) {
        var text = hex.lowercased()
        if text == "transparent" { self = .transparent; return }
        if text.hasPrefix("#") { text.removeFirst() }
        guard text.allSatisfy(\.isHexDigit) else { return nil }
        if text.count == 3 {
            text = text.map { "\($0)\($0)" }.joined()
        }
        guard text.count == 6 || text.count == 8, let value = UInt32(text, radix: 16) else { return nil }
        if text.count == 6 {
            self.init(red: UInt8(value >> 16 & 0xff), green: UInt8(value >> 8 & 0xff), blue: UInt8(value & 0xff))
        } else {
            self.init(red: UInt8(value >> 24 & 0xff), green: UInt8(value >> 16 & 0xff),
                      blue: UInt8(value >> 8 & 0xff), alpha: UInt8(value & 0xff))
        }
    }

    /// The canonical hex form, without `#`.
    public var hex: String {
        func byte(_ value: UInt8) -> String {
            let digits = String(value, radix: 16)
            return digits.count == 1 ? "0" + digits : digits
        }
        let rgb = byte(red) + byte(green) + byte(blue)
        return alpha == 255 ? rgb : rgb + byte(alpha)
    }

    /// The colour as `#` and its canonical hex, e.g. `#ff8800` or `#00000080`.
    public var description: String { "#" + hex }
}
