import Crypto
import Foundation
import WarmCache

/// A digest of a set of sources' index rows that does not depend on the order they were added
/// in: the sum, modulo 2²⁵⁶, of each source's SHA-256 over the values of its rows.
///
/// ``IndexBuilder`` keeps one for the rows it stages, from the very values it binds (a column
/// added to the index is digested once it is staged). Sources finish in any order, so a
/// sum rather than a chained hash; each source's rows hold its identifier, which the index
/// keeps unique, so no two sources add the same term.
struct RowsDigest: Equatable, Sendable {
    /// Little-endian 64-bit words.
    private var words: [UInt64] = [0, 0, 0, 0]

    /// Adds one source's rows: each row a table name and its values, as they are bound.
    mutating func add(_ rows: [(table: StaticString, values: [SQLiteValue])]) {
        var hasher = SHA256()
        for row in rows {
            hasher.update(bufferPointer: UnsafeRawBufferPointer(start: row.table.utf8Start,
                                                                count: row.table.utf8CodeUnitCount))
            Self.feed(UInt8(row.values.count), to: &hasher)
            for value in row.values {
                Self.feed(value, to: &hasher)
            }
        }
        let term = hasher.finalize().withUnsafeBytes { bytes in
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

    /// A type tag and, for variable-length values, the length before the bytes: no two value
    /// lists feed the same bytes.
    private static func feed(_ value: SQLiteValue, to hasher: inout SHA256) {
        switch value {
        case .null:
            feed(0, to: &hasher)
        case .integer(let number):
            feed(1, to: &hasher)
            withUnsafeBytes(of: number.littleEndian) { hasher.update(bufferPointer: $0) }
        case .text(let text):
            feed(2, to: &hasher)
            var text = text
            text.withUTF8 { bytes in
                withUnsafeBytes(of: UInt64(bytes.count).littleEndian) { hasher.update(bufferPointer: $0) }
                hasher.update(bufferPointer: UnsafeRawBufferPointer(bytes))
            }
        case .blob(let data):
            feed(3, to: &hasher)
            withUnsafeBytes(of: UInt64(data.count).littleEndian) { hasher.update(bufferPointer: $0) }
            hasher.update(data: data)
        }
    }

    private static func feed(_ byte: UInt8, to hasher: inout SHA256) {
        withUnsafeBytes(of: byte) { hasher.update(bufferPointer: $0) }
    }
}
