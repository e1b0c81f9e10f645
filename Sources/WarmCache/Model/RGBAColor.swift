/// An 8-bit sRGB colour with alpha, written canonically as lowercase hex:
/// `rrggbb` when opaque, `rrggbbaa` otherwise.
public struct RGBAColor: Hashable, Sendable, Codable, CustomStringConvertible {
    public var red: UInt8
    public var green: UInt8
    public var blue: UInt8
    public var alpha: UInt8

    public init(red: UInt8, green: UInt8, blue: UInt8, alpha: UInt8 = 255) {
        self.red = red
        self.green = green
        self.blue = blue
        self.alpha = alpha
    }

    public static let white = RGBAColor(red: 255, green: 255, blue: 255)
    public static let black = RGBAColor(red: 0, green: 0, blue: 0)
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

    public var description: String { "#" + hex }
}
