import Foundation

/// Byte sizes as manifests write them: `512KB`, `50MB`, `1GiB`, or a bare number of bytes.
///
/// `KB`, `MB`, `GB`, `TB` are powers of 1000; `KiB`, `MiB`, `GiB`, `TiB` powers of 1024. Units
/// are case-insensitive (`50mb` is `50MB`), a space may separate number and unit, and
/// fractions are allowed (`1.5MB`); the result is rounded down to whole bytes.
public enum ManifestByteSize {
    static let units: [String: Double] = [
        "b": 1,
        "kb": 1e3, "mb": 1e6, "gb": 1e9, "tb": 1e12,
        "kib": 1024, "mib": 1_048_576, "gib": 1_073_741_824, "tib": 1_099_511_627_776,
    ]

    /// The size in bytes, or `nil` if `text` is not a byte size or does not fit an `Int`.
    public static func bytes(from text: String) -> Int? {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        let number = trimmed.prefix { $0.isNumber || $0 == "." || $0 == "_" }
        let unitText = trimmed.dropFirst(number.count).trimmingCharacters(in: .whitespaces).lowercased()
        guard let value = Double(number.replacingOccurrences(of: "_", with: "")),
              let multiplier = unitText.isEmpty ? 1 : units[unitText] else { return nil }
        let bytes = (value * multiplier).rounded(.down)
        guard bytes.isFinite, bytes < Double(Int.max) else { return nil }
        return Int(bytes)
    }
}
