import Crypto
import Foundation
import WarmCache

/// A digest of a set of sources' index rows that does not depend on the order they were added
/// in: the sum, modulo 2²⁵⁶, of each source's SHA-256 over the values of its rows.
///
/// ``IndexBuilder`` keeps one for the rows it stages, over the very bytes its rows are staged
/// from (``SourceRows``: a column added to the index is digested once it is staged). Sources
/// finish in any order, so a sum rather than a chained hash; each source's rows hold its
/// identifier, which the index keeps unique, so no two sources add the same term.
struct RowsDigest: Equatable, Sendable {
    /// Little-endian 64-bit words.
    private var words: [UInt64] = [0, 0, 0, 0]

    /// Adds one source's rows: the SHA-256 of their bytes (``SourceRows``) is one term of the sum.
    mutating func add(_ rows: SourceRows) {
        let term = SHA256.hash(data: rows.bytes).withUnsafeBytes { bytes in
            (0..<4).map { bytes.loadUnaligned(fromByteOffset: $0 * 8, as: UInt64.self).littleEndian }
        }
        var carry: UInt64 = 0
        for index in 0..<4 {
            let (sum, overflow) = words[index].addingReportingOverflow(term[index])
            let (withCarry, overflow2) = sum.addingReportingOverflow(carry)
            words[index] = withCarry
            carry = (overflow ? 1 : 0) + (overflow2 ? 1 : 0)
        }
    }

    /// The digest as 64 hexadecimal digits (most significant word first).
    var hex: String {
        words.reversed().map { word in
            let digits = String(word, radix: 16)
            return String(repeating: "0", count: 16 - digits.count) + digits
        }.joined()
    }
}
