import Crypto
import Foundation

/// SHA-256 as the bundle spells it: 64 lowercase hex digits.
public enum ContentHash {
    public static func sha256(_ data: Data) -> String {
        hex(SHA256.hash(data: data))
    }

    public static func hex<D: Sequence>(_ digest: D) -> String where D.Element == UInt8 {
        let digits = Array("0123456789abcdef".utf8)
        var out = [UInt8]()
        out.reserveCapacity(64)
        for byte in digest {
            out.append(digits[Int(byte >> 4)])
            out.append(digits[Int(byte & 0xf)])
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// Whether `text` looks like a hash this module writes.
    public static func isValid(_ text: Substring) -> Bool {
        text.utf8.count == 64 && text.utf8.allSatisfy { (48...57).contains($0) || (97...102).contains($0) }
    }
}
