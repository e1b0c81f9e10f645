import Foundation

/// A compact in-memory copy of what best-fit selection reads from an index: for every valid variant
/// its key, fit, format, processors, pixel size, byte count, blob hash, alpha flag and presets,
/// grouped by source. A lookup then costs a binary search over the sources and a pass over that
/// source's few variants, with no SQL and no copying out of SQLite's buffers.
///
/// Built once from the index by ``load(from:)``, with every rule of ``IndexValidation``: a row the
/// SQLite lookups would skip is not here, and a variant is kept under a source only if its
/// `source_id` is that source's `id` and its `cache_key` starts with the source's escaped
/// identifier and `|`. Immutable once ``load(from:)`` returns, so any number of threads read it at once.
///
/// Memory: 72 bytes per variant plus its key after the source's prefix, and per source 24 bytes
/// plus its identifier: 105 bytes per variant on `warm-cache-bench lookup`'s index, which prints it.
final class MemoryIndex: @unchecked Sendable {
    /// One variant, in 40 bytes plus its hash (32 bytes in ``hashes``) and its key's tail (in ``text``).
    struct Entry: VariantFacts, Sendable {
        /// Where the key's text after `<escaped source>|` starts in ``text``, and its length.
        let keyTail: UInt32
        let keyTailLength: UInt32
        let width: UInt32
        let height: UInt32
        let bytes: UInt64
        /// Bit `i` set: the variant is listed under ``presetBits``' preset `i`.
        let presets: UInt64
        let fit: FitMode.Kind
        let format: ImageFormat
        let hasAlpha: Bool
        /// The `processors` value: `processorTokens[processors]`.
        let processors: UInt16
        let processorCountByte: UInt8

        var pixelSize: PixelSize { PixelSize(width: Int(width), height: Int(height)) }
        var byteCount: Int { Int(bytes) }
        var processorCount: Int { Int(processorCountByte) }
    }

    /// One source: its escaped identifier (`text[prefix..<prefix + prefixLength]`) and its entries,
    /// `entries[firstEntry..<firstEntry + entryCount]`. ``sources`` is sorted by `hash`.
    struct Source: Sendable {
        let hash: UInt64
        let prefix: UInt32
        let prefixLength: UInt32
        let firstEntry: UInt32
        let entryCount: UInt32
    }

    private init(sources: [Source], entries: [Entry], hashes: [UInt8], text: [UInt8], processorTokens: [String]) {
        self.sources = sources
        self.entries = entries
        self.hashes = hashes
        self.text = text
        self.processorTokens = processorTokens
    }

    private let sources: [Source]
    private var entries: [Entry]
    /// Raw SHA-256 of each entry's blob, 32 bytes per entry.
    private let hashes: [UInt8]
    /// Escaped source identifiers and key tails.
    private let text: [UInt8]
    /// The distinct `processors` values (at most 65,536, else lookups stay on SQLite).
    private let processorTokens: [String]
    /// The bit of each preset, for at most 64 presets; `nil` when the index lists more (lookups
    /// in a preset then go to SQLite).
    private var presetBits: [String: UInt64]? = [:]

    /// The variants of `source` (by its escaped identifier), or `nil` when the index has none for it.
    func variants(ofEscaped escaped: String) -> Variants? {
        var escaped = escaped
        return escaped.withUTF8 { wanted -> Variants? in
            let hash = Self.hash(wanted)
            var low = 0
            var high = sources.count
            while low < high {
                let middle = (low + high) / 2
                if sources[middle].hash < hash { low = middle + 1 } else { high = middle }
            }
            var index = low
            while index < sources.count, sources[index].hash == hash {
                let source = sources[index]
                let matches = text.withUnsafeBufferPointer { all in
                    Int(source.prefixLength) == wanted.count
                        && Self.equal(all.baseAddress.map { $0 + Int(source.prefix) }, wanted.baseAddress, wanted.count)
                }
                if matches {
                    let first = Int(source.firstEntry)
                    return Variants(index: self, source: source, entries: first..<(first + Int(source.entryCount)))
                }
                index += 1
            }
            return nil
        }
    }

    /// The answer for an exact cache key, if the key is here and `present` finds its blob.
    func image(forCacheKey cacheKey: String, present: (VariantRecord) -> CachedImage?) -> CachedImage? {
        var cacheKey = cacheKey
        return cacheKey.withUTF8 { key -> CachedImage? in
            // The escaped source ends at the first `|` (escaping writes `|` as `%7C`).
            guard let bar = key.firstIndex(of: UInt8(ascii: "|")),
                  let variants = variants(ofEscaped: String(decoding: UnsafeBufferPointer(rebasing: key[..<bar]),
                                                            as: UTF8.self)),
                  let position = variants.entry(withKeyTail: UnsafeBufferPointer(rebasing: key[(bar + 1)...]))
            else { return nil }
            return present(variants.record(position))
        }
    }

    /// Whether preset lookups can be answered here, and the bit of `preset` (0 when no variant is in it).
    func presetBit(_ preset: String) -> UInt64? {
        guard let presetBits else { return nil }
        return presetBits[preset] ?? 0
    }

    /// The variants of one source.
    struct Variants {
        let index: MemoryIndex
        let source: Source
        let entries: Range<Int>

        /// The selector's choice among the source's variants in the presets of `presetMask` (any
        /// when `nil`), skipping the entries in `excluded`; the same rules as the SQLite lookup.
        func best(_ selector: VariantSelector, presetMask: UInt64?, excluding excluded: Set<Int>) -> Int? {
            var required: UInt16?  // nil: any processors
            if let token = selector.processors {
                guard let position = index.processorTokens.firstIndex(of: token) else { return nil }
                required = UInt16(position)
            }
            return index.entries.withUnsafeBufferPointer { all in
                var best: (entry: Int, covers: Bool)?
                for position in entries {
                    let entry = all[position]
                    guard selector.accepts(entry), required.map({ entry.processors == $0 }) ?? true,
                          presetMask.map({ entry.presets & $0 != 0 }) ?? true,
                          excluded.isEmpty || !excluded.contains(position) else { continue }
                    let covering = selector.covers(entry)
                    if let current = best, !selector.beats(
                        entry, covering: covering, all[current.entry], currentCovering: current.covers,
                        candidateKeyIsLower: {
                            index.keyTail(of: entry).lexicographicallyPrecedes(index.keyTail(of: all[current.entry]))
                        }) {
                        continue
                    }
                    best = (position, covering)
                }
                return best?.entry
            }
        }

        /// The entry whose cache key is `<escaped source>|tail`.
        func entry(withKeyTail tail: UnsafeBufferPointer<UInt8>) -> Int? {
            index.entries.withUnsafeBufferPointer { all in
                index.text.withUnsafeBufferPointer { text in
                    entries.first { position in
                        let entry = all[position]
                        return Int(entry.keyTailLength) == tail.count
                            && MemoryIndex.equal(text.baseAddress.map { $0 + Int(entry.keyTail) }, tail.baseAddress,
                                                 tail.count)
                    }
                }
            }
        }

        /// The full record of an entry.
        func record(_ position: Int) -> VariantRecord {
            let entry = index.entries[position]
            let prefix = Int(source.prefix)..<Int(source.prefix + source.prefixLength)
            let tail = Int(entry.keyTail)..<Int(entry.keyTail + entry.keyTailLength)
            let key = index.text.withUnsafeBufferPointer { all in
                String(unsafeUninitializedCapacity: prefix.count + 1 + tail.count) { out in
                    let start = out.baseAddress!  // at least the `|`
                    if let all = all.baseAddress {  // nil only when there is no text at all
                        start.initialize(from: all + prefix.lowerBound, count: prefix.count)
                        (start + prefix.count + 1).initialize(from: all + tail.lowerBound, count: tail.count)
                    }
                    start[prefix.count] = UInt8(ascii: "|")
                    return prefix.count + 1 + tail.count
                }
            }
            let hex = index.hashes.withUnsafeBufferPointer { all in
                String(unsafeUninitializedCapacity: 64) { out in
                    let digits: StaticString = "0123456789abcdef"
                    for offset in 0..<32 {
                        let byte = all[position * 32 + offset]
                        out[2 * offset] = digits.utf8Start[Int(byte >> 4)]
                        out[2 * offset + 1] = digits.utf8Start[Int(byte & 15)]
                    }
                    return 64
                }
            }
            return VariantRecord(cacheKey: key, fit: entry.fit, format: entry.format, processors: index.processorTokens[Int(entry.processors)],
                                 pixelSize: entry.pixelSize, byteCount: entry.byteCount, sha256: hex,
                                 hasAlpha: entry.hasAlpha)
        }
    }

    private func keyTail(of entry: Entry) -> ArraySlice<UInt8> { text[Int(entry.keyTail)..<Int(entry.keyTail + entry.keyTailLength)]
    }

    /// Whether `count` bytes at `left` and `right` are equal (any pointer may be nil when `count` is 0).
    private static func equal(_ left: UnsafePointer<UInt8>?, _ right: UnsafePointer<UInt8>?, _ count: Int) -> Bool {
        guard count > 0 else { return true }
        guard let left, let right else { return false }
        return memcmp(left, right, count) == 0
    }

    /// FNV-1a, 64 bits: the sources' order in memory (not stored anywhere).
    private static func hash(_ bytes: UnsafeBufferPointer<UInt8>) -> UInt64 {
        var state: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in bytes { state = (state ^ UInt64(byte)) &* 0x100_0000_01b3 }
        return state
    }

    // MARK: Loading

    /// Reads every source, variant and preset row of the index on `connection`. Rows
    /// ``IndexValidation`` rejects are left out, as the SQLite lookups skip them.
    /// - Throws: ``SQLiteError`` when the index cannot be read (the SQLite lookups then report it).
    static func load(from connection: SQLiteConnection) throws -> MemoryIndex {
        // Sources: escaped identifier by id. If two rows claim one identifier (only a damaged index
        // can), the lowest id owns it, as `(SELECT id FROM sources WHERE source = ?)` finds it.
        var escapedByID: [Int: String] = [:]
        var owner: Set<[UInt8]> = []  // bytes, as SQLite compares them
        typealias S = IndexSchema.Sources
        let sourceRows = try connection.statement("SELECT \(S.id), \(S.source) FROM \(S.table) ORDER BY \(S.id)")
        let (idColumn, sourceColumn) = (sourceRows.column(S.id), sourceRows.column(S.source))
        while try sourceRows.step() {
            guard let id = sourceRows.strictInt(idColumn), let bytes = sourceRows.textBytes(sourceColumn) else { continue }
            let source = String(decoding: bytes, as: UTF8.self)
            guard source.utf8.elementsEqual(bytes) else { continue }  // not UTF-8: no lookup names it
            let escaped = VariantKey.escape(source)
            if owner.insert(Array(escaped.utf8)).inserted { escapedByID[id] = escaped }
        }

        // Variants in key order: a source's keys all start with `<escaped source>|` (escaping leaves
        // no `|` inside), so they come one after another and each source is one run of entries.
        var sources: [Source] = []
        var entries: [Entry] = []
        var hashes: [UInt8] = []
        var text: [UInt8] = []
        // Sized once: growing by doubling would hold up to twice the memory, and leave the freed
        // halves to the allocator.
        let count = try connection.statement("SELECT count(*) AS variants FROM \(IndexSchema.Variants.table)")
        if try count.step(), let rows = count.strictInt("variants"), rows > 0, UInt64(rows) <= UInt64(UInt32.max) {
            entries.reserveCapacity(rows)
            hashes.reserveCapacity(rows * 32)
        }
        var processorTokens: [String] = []
        var processorNumbers: [String: UInt16] = [:]
        var run: (sourceID: Int, prefix: String, source: Source)?
        func closeRun() {
            guard let open = run?.source else { return }
            sources.append(Source(hash: open.hash, prefix: open.prefix, prefixLength: open.prefixLength,
                                  firstEntry: open.firstEntry, entryCount: UInt32(entries.count) - open.firstEntry))
            run = nil
        }
        let variantRows = try connection.statement("""
            SELECT \(IndexValidation.variantColumns) FROM \(IndexSchema.Variants.table) v
            ORDER BY v.\(IndexSchema.Variants.cacheKey)
            """)
        let columns = variantRows.columns(VariantColumns.self)
        while try variantRows.step() {
            guard case .success(let fields) = IndexValidation.decodeFields(variantRows, columns),
                  let key = variantRows.textBytes(columns.cacheKey), let hash = variantRows.textBytes(columns.blobSHA256)
            else { continue }
            if run?.sourceID != fields.sourceID {
                // A row that does not belong to its source is skipped before it can end a run.
                guard var escaped = escapedByID[fields.sourceID] else { continue }
                var prefix = escaped + "|"
                guard prefix.withUTF8({ key.starts(with: $0) }) else { continue }
                closeRun()
                guard UInt64(text.count) + UInt64(escaped.utf8.count) < UInt64(UInt32.max) else { throw MemoryIndexTooLarge() }
                let source = Source(hash: escaped.withUTF8(Self.hash), prefix: UInt32(text.count),
                                    prefixLength: UInt32(escaped.utf8.count), firstEntry: UInt32(entries.count),
                                    entryCount: 0)
                escaped.withUTF8 { text.append(contentsOf: $0) }
                run = (fields.sourceID, prefix, source)
            }
            guard var prefix = run?.prefix, prefix.withUTF8({ key.starts(with: $0) }) else { continue }
            let tail = key[prefix.utf8.count...]
            guard UInt64(text.count) + UInt64(tail.count) < UInt64(UInt32.max) else { throw MemoryIndexTooLarge() }
            guard let processors = processorNumbers[fields.processors]
                    ?? (processorTokens.count <= Int(UInt16.max) ? UInt16(processorTokens.count) : nil)
            else { throw MemoryIndexTooLarge() }
            guard let processorCount = UInt8(exactly: fields.processorCount) else { throw MemoryIndexTooLarge() }
            if processorNumbers[fields.processors] == nil {
                processorNumbers[fields.processors] = processors
                processorTokens.append(fields.processors)
            }
            entries.append(Entry(
                keyTail: UInt32(text.count), keyTailLength: UInt32(tail.count),
                width: UInt32(fields.pixelSize.width), height: UInt32(fields.pixelSize.height),
                bytes: UInt64(fields.byteCount), presets: 0, fit: fields.fit, format: fields.format,
                hasAlpha: fields.hasAlpha, processors: processors,
                processorCountByte: processorCount))
            text.append(contentsOf: tail)
            appendRawHash(hash, to: &hashes)
        }
        closeRun()
        // A source whose rows were not contiguous (a table without its key order) got several runs:
        // leave such sources to SQLite rather than answer from part of their rows.
        sources.sort { $0.hash != $1.hash ? $0.hash < $1.hash : $0.prefix < $1.prefix }
        var split: Set<Int> = []
        for (position, source) in sources.enumerated().dropFirst() where source.hash == sources[position - 1].hash {
            let previous = sources[position - 1]
            if text[Int(source.prefix)..<Int(source.prefix + source.prefixLength)]
                == text[Int(previous.prefix)..<Int(previous.prefix + previous.prefixLength)] {
                split.insert(position)
                split.insert(position - 1)
            }
        }
        guard split.isEmpty else { throw MemoryIndexUnordered() }

        let index = MemoryIndex(sources: sources, entries: entries, hashes: hashes,
                                text: text.withUnsafeBufferPointer { Array($0) },
                                processorTokens: processorTokens)  // without the spare capacity
        try index.loadPresets(from: connection)
        return index
    }

    /// Marks each entry with the presets that list it (when there are at most 64 presets).
    private func loadPresets(from connection: SQLiteConnection) throws {
        var bits: [String: UInt64] = [:]
        typealias P = IndexSchema.VariantPresets
        let presetRows = try connection.statement("SELECT \(P.preset), \(P.cacheKey) FROM \(P.table)")
        let (presetColumn, keyColumn) = (presetRows.column(P.preset), presetRows.column(P.cacheKey))
        while try presetRows.step() {
            guard let preset = presetRows.textBytes(presetColumn), let key = presetRows.textBytes(keyColumn),
                  let bar = key.firstIndex(of: UInt8(ascii: "|")),
                  let variants = variants(ofEscaped: String(decoding: UnsafeBufferPointer(rebasing: key[..<bar]),
                                                            as: UTF8.self)),
                  let position = variants.entry(withKeyTail: UnsafeBufferPointer(rebasing: key[(bar + 1)...]))
            else { continue }
            let name = String(decoding: preset, as: UTF8.self)
            guard let bit = bits[name] ?? (bits.count < 64 ? 1 << UInt64(bits.count) : nil) else {
                presetBits = nil  // more than 64 presets: lookups in a preset stay on SQLite
                return
            }
            bits[name] = bit
            let entry = entries[position]
            entries[position] = Entry(keyTail: entry.keyTail, keyTailLength: entry.keyTailLength, width: entry.width,
                                      height: entry.height, bytes: entry.bytes, presets: entry.presets | bit,
                                      fit: entry.fit, format: entry.format, hasAlpha: entry.hasAlpha,
                                      processors: entry.processors, processorCountByte: entry.processorCountByte)
        }
        presetBits = bits
    }

    /// 64 lowercase hex digits (checked by ``IndexValidation``) as 32 bytes.
    private static func appendRawHash(_ hex: UnsafeBufferPointer<UInt8>, to bytes: inout [UInt8]) {
        func nibble(_ digit: UInt8) -> UInt8 { digit <= UInt8(ascii: "9") ? digit - UInt8(ascii: "0") : digit - 87 }
        for offset in 0..<32 { bytes.append(nibble(hex[2 * offset]) << 4 | nibble(hex[2 * offset + 1])) }
    }

    /// The index's text does not fit 32-bit offsets (over 4 GiB of keys), or it has more than
    /// 65,536 different `processors` values or one of over 255 processors: lookups stay on SQLite.
    struct MemoryIndexTooLarge: Error {}
    /// The variants table does not give a source's rows one after another: lookups stay on SQLite.
    struct MemoryIndexUnordered: Error {}

    /// Bytes this index holds (its arrays' elements, not counting allocator overhead).
    var byteCount: Int {
        sources.count * MemoryLayout<Source>.stride + entries.count * MemoryLayout<Entry>.stride
            + hashes.count + text.count
    }

    var variantCount: Int { entries.count }
}
