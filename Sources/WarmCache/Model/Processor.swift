/// A pixel operation applied to a variant after sizing, in the order listed.
///
/// Processors are part of a variant's identity: their canonical tokens, in order, are a field
/// of the ``VariantKey``. Lengths are in points and scaled by the variant's scale.
public enum Processor: Hashable, Sendable, Codable {
    /// Rounds the corners with this radius in points. Produces transparency, so a variant with
    /// this processor must use a format with alpha (or be flattened onto a background).
    case roundCorners(radius: Double)
    /// Gaussian blur with this sigma in points.
    case blur(sigma: Double)
    /// Converts to greyscale (kept in an sRGB container, so every decoder shows it alike).
    case grayscale
    /// Flattens any transparency onto this colour.
    case flatten(background: RGBAColor)

    /// Whether the output of this processor has transparency that a JPEG would lose.
    package var introducesAlpha: Bool {
        if case .roundCorners = self { return true }
        return false
    }

    /// Canonical token: `round(24)`, `blur(1.5)`, `grayscale`, `flatten(ffffff)`.
    package var token: String {
        switch self {
        case .roundCorners(let radius): return "round(\(CanonicalNumber.format(radius)))"
        case .blur(let sigma): return "blur(\(CanonicalNumber.format(sigma)))"
        case .grayscale: return "grayscale"
        case .flatten(let background): return "flatten(\(background.hex))"
        }
    }

    /// Parses a ``token``; only canonical spellings are accepted.
    package init?(token: String) {
        if token == "grayscale" { self = .grayscale; return }
        guard token.hasSuffix(")"), let open = token.firstIndex(of: "(") else { return nil }
        let name = token[..<open]
        let argument = String(token[token.index(after: open)..<token.index(before: token.endIndex)])
        switch name {
        case "round":
            guard let value = CanonicalNumber.parse(argument), value > 0 else { return nil }
            self = .roundCorners(radius: value)
        case "blur":
            guard let value = CanonicalNumber.parse(argument), value > 0 else { return nil }
            self = .blur(sigma: value)
        case "flatten":
            guard let colour = RGBAColor(hex: argument), colour.hex == argument else { return nil }
            self = .flatten(background: colour)
        default:
            return nil
        }
    }

    /// Canonical token for a list of processors: tokens joined by `,`, or `-` for none.
    package static func token(for processors: [Processor]) -> String {
        processors.isEmpty ? "-" : processors.map(\.token).joined(separator: ",")
    }

    /// Parses ``token(for:)``.
    package static func parseList(_ token: String) -> [Processor]? {
        if token == "-" { return [] }
        var result: [Processor] = []
        for part in token.split(separator: ",", omittingEmptySubsequences: false) {
            guard let processor = Processor(token: String(part)) else { return nil }
            result.append(processor)
        }
        return result
    }
}

/// The one way numbers are written in keys: integers without a fraction (`24`), others in
/// Swift's shortest round-trip form (`1.5`), never exponent notation for the values keys hold.
enum CanonicalNumber {
    static func format(_ value: Double) -> String {
        if value == value.rounded(), abs(value) < 1e15 {
            return String(Int64(value))
        }
        return String(value)
    }

    static func parse(_ text: String) -> Double? {
        guard let value = Double(text), value.isFinite, format(value) == text else { return nil }
        return value
    }
}
