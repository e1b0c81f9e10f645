import Foundation
import WarmCache

/// One source's index rows, encoded once as bytes: its source row, its placeholder row (if it
/// has a placeholder), and each variant's row followed by that variant's presets.
///
/// The bytes are what ``RowsDigest`` hashes, and the form in which rows wait on disk while
/// ``IndexBuilder`` defers staging them (a no-op re-warm then never stages them at all). Each
/// row is its table's name, the number of values, and each value with a type tag (`0` null,
/// `1` a 64-bit little-endian integer, `2` text and `3` a blob, both with a 64-bit length
/// before their bytes): no two lists of rows have the same bytes. Values are in the table's
/// column order (``IndexSchema``), without the source id (which the staging database assigns); a
/// variant's cache key comes first.
struct SourceRows: Sendable {
    /// The tables a source's rows go to. No name is a prefix of another, so a row's name is
    /// read back without a length.
    enum Table: CaseIterable, Sendable {
        case sources, placeholders, variants, variantPresets

        /// The table's name, which the bytes hold.
        var name: String {
            switch self {
            case .sources: return IndexSchema.Sources.table.name
            case .placeholders: return IndexSchema.Placeholders.table.name
            case .variants: return IndexSchema.Variants.table.name
            case .variantPresets: return IndexSchema.VariantPresets.table.name
            }
        }
    }

    private(set) var bytes: [UInt8] = []

    /// Encodes `source`'s rows and its `variants`' (each variant's presets de-duplicated and sorted).
    init(_ source: BundleContents.Source, variants: [BundleContents.Variant]) {
        bytes.reserveCapacity(256 + 320 * variants.count)
        row(.sources, count: 6)
        text(source.identifier.rawValue)
        text(source.contentSHA256)
        text(source.format)
        integer(source.pixelSize.width)
        integer(source.pixelSize.height)
        integer(source.byteCount)
        if let placeholder = source.placeholder, !placeholder.isEmpty {
            row(.placeholders, count: 3)
            if let thumbHash = placeholder.thumbHash { blob(thumbHash) } else { null() }
            optionalText(placeholder.blurHash)
            optionalText(placeholder.averageColor?.hex)
        }
        for variant in variants {
            let spec = variant.key.spec
            row(.variants, count: 20)
            text(variant.key.rawValue)
            integer(spec.width)
            integer(spec.height)
            integer(spec.scale)
            text(spec.fit.kind.rawValue)
            optionalText(spec.fit.gravity?.rawValue)
            optionalText(spec.fit.background?.hex)
            integer(spec.allowUpscale ? 1 : 0)
            text(spec.format.rawValue)
            integer(spec.quality)
            text(spec.options.tokens.joined(separator: "-"))
            text(Processor.token(for: spec.processors))
            integer(variant.pixelSize.width)
            integer(variant.pixelSize.height)
            integer(variant.byteCount)
            text(variant.blobSHA256)
            integer(variant.hasAlpha ? 1 : 0)
            integer(spec.qualityTarget)
            integer(variant.perceptual?.quality)
            real(variant.perceptual?.score)
            let presets = Set(variant.presets).sorted()
            row(.variantPresets, count: presets.count)
            for preset in presets { text(preset) }
        }
    }

    /// Rows read back from bytes that ``bytes`` gave. They are checked as they are read:
    /// ``forEachRow(_:)`` throws ``Malformed`` for bytes that are not such rows.
    init(bytes: [UInt8]) {
        self.bytes = bytes
    }

    /// Calls `body` with each row, in order, as the values to bind; throws ``Malformed`` (before
    /// calling `body` for that row) where the bytes are not rows.
    func forEachRow(_ body: (Table, [SQLiteValue]) throws -> Void) throws {
        try bytes.withUnsafeBufferPointer { buffer in
            var reader = Reader(buffer: buffer)
            while !reader.isAtEnd {
                let table = try reader.table()
                let count = Int(try reader.byte())
                var values: [SQLiteValue] = []
                values.reserveCapacity(count)
                for _ in 0..<count { values.append(try reader.value()) }
                try body(table, values)
            }
        }
    }

    /// The bytes were not written by ``SourceRows``.
    struct Malformed: Error, CustomStringConvertible {
        var description: String { "deferred index rows are damaged" }
    }

    // MARK: Writing

    private mutating func row(_ table: Table, count: Int) {
        bytes.append(contentsOf: table.name.utf8)
        bytes.append(UInt8(count))
    }

    private mutating func null() {
        bytes.append(0)
    }

    /// An integer, or null for `nil` (as ``SQLiteValue/int(_:)`` binds it).
    private mutating func integer(_ value: Int?) {
        guard let value else { return null() }
        bytes.append(1)
        append(UInt64(bitPattern: Int64(value)))
    }

    /// A floating-point number, or null for `nil`.
    private mutating func real(_ value: Double?) {
        guard let value else { return null() }
        bytes.append(4)
        append(value.bitPattern)
    }

    private mutating func text(_ value: String) {
        bytes.append(2)
        var value = value
        value.withUTF8 { utf8 in
            append(UInt64(utf8.count))
            bytes.append(contentsOf: utf8)
        }
    }

    private mutating func optionalText(_ value: String?) {
        if let value { text(value) } else { null() }
    }

    private mutating func blob(_ value: Data) {
        bytes.append(3)
        append(UInt64(value.count))
        bytes.append(contentsOf: value)
    }

    private mutating func append(_ word: UInt64) {
        withUnsafeBytes(of: word.littleEndian) { bytes.append(contentsOf: $0) }
    }

    // MARK: Reading

    private struct Reader {
        let buffer: UnsafeBufferPointer<UInt8>
        var offset = 0

        var isAtEnd: Bool { offset == buffer.count }

        mutating func byte() throws -> UInt8 {
            guard offset < buffer.count else { throw Malformed() }
            defer { offset += 1 }
            return buffer[offset]
        }

        mutating func word() throws -> UInt64 {
            guard buffer.count - offset >= 8 else { throw Malformed() }
            var word: UInt64 = 0
            for shift in stride(from: 0, to: 64, by: 8) {
                word |= UInt64(buffer[offset]) << UInt64(shift)
                offset += 1
            }
            return word
        }

        mutating func slice() throws -> UnsafeBufferPointer<UInt8> {
            let length = try word()
            guard length <= UInt64(buffer.count - offset) else { throw Malformed() }
            defer { offset += Int(length) }
            return UnsafeBufferPointer(rebasing: buffer[offset..<offset + Int(length)])
        }

        mutating func table() throws -> Table {
            for table in Table.allCases {
                let name = table.name.utf8
                if buffer.count - offset >= name.count, buffer[offset..<offset + name.count].elementsEqual(name) {
                    offset += name.count
                    return table
                }
            }
            throw Malformed()
        }

        mutating func value() throws -> SQLiteValue {
            switch try byte() {
            case 0: return .null
            case 1: return .integer(Int64(bitPattern: try word()))
            case 2: return .text(String(decoding: try slice(), as: UTF8.self))
            case 3: return .blob(Data(try slice()))
            case 4: return .real(Double(bitPattern: try word()))
            default: throw Malformed()
            }
        }
    }
}
