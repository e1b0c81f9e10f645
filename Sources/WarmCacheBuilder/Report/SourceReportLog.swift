import Foundation
import WarmCache

/// The per-source lines of a run's report, kept on disk while the run goes on, so a run of a
/// million sources holds none of them in memory.
///
/// A private temporary SQLite database (deleted when the log is released) holds finished
/// sources' ``SourceReport``s as JSON, with their identifiers; ``write(_:to:)`` streams them back in
/// identifier order into the report file. A run that writes no report file keeps only the
/// failed sources' lines (all that ``failures()`` reads): a re-warm of thousands of sources then
/// encodes and stores nothing per source that went well.
///
/// Not thread-safe: one task at a time uses it (the run's loop), handing each call to a Dispatch
/// thread with ``BlockingWork``, hence `@unchecked Sendable`.
final class SourceReportLog: @unchecked Sendable {
    private let connection: SQLiteConnection
    private var pending = 0
    /// Failed sources logged so far: with none, ``failures()`` reads nothing.
    private var failedCount = 0
    private let keepsEveryLine: Bool
    private let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }()

    /// - Parameter keepsEveryLine: whether ``write(_:to:)`` will be called; without it only
    ///   failed sources are kept.
    init(keepsEveryLine: Bool) throws {
        self.keepsEveryLine = keepsEveryLine
        // An empty path opens a private on-disk database that SQLite deletes when it is closed.
        connection = try SQLiteConnection(path: "", readOnly: false)
        try connection.execute("""
            PRAGMA journal_mode = OFF;
            PRAGMA synchronous = OFF;
            CREATE TABLE \(Lines.table) (\(Lines.identifier) TEXT NOT NULL, \(Lines.failed) INTEGER NOT NULL, \
            \(Lines.json) BLOB NOT NULL);
            BEGIN;
            """)
    }

    /// The log's one table, each column named once: a source's identifier, whether it failed (1)
    /// and its line of JSON.
    private enum Lines {
        static let table = "lines", identifier = "identifier", failed = "failed", json = "json"
    }

    /// Logs finished sources' lines, each source once. Lines are appended in the order they come
    /// (sources finish in no useful order; a table kept in identifier order would take each line
    /// as a random insert) and sorted once, when read.
    func append(contentsOf reports: [SourceReport]) throws {
        for report in reports where keepsEveryLine || report.status == .failed {
            let json = try report.jsonLine.map { Data($0) } ?? encoder.encode(report)
            try connection.statement("""
                INSERT INTO \(Lines.table) (\(Lines.identifier), \(Lines.failed), \(Lines.json)) VALUES (?, ?, ?)
                """)
                .bind(.text(report.identifier), .int(report.status == .failed ? 1 : 0), .blob(json)).run()
            pending += 1
            if report.status == .failed { failedCount += 1 }
            if pending >= 512 {
                pending = 0
                try connection.execute("COMMIT; BEGIN")
            }
        }
    }

    /// The sources that failed, in identifier order.
    func failures() throws -> [SourceReport] {
        guard failedCount > 0 else { return [] }
        var failures: [SourceReport] = []
        try forEachLine(failedOnly: true) { json in
            failures.append(try JSONDecoder().decode(SourceReport.self, from: json))
        }
        return failures
    }

    /// Writes every logged line, in identifier order and separated as in the report, into a
    /// new temporary file beside `url`, and returns it: the slow part of writing a report of
    /// thousands of sources, done while the bundle is committed. ``write(_:to:lines:)`` then
    /// puts the report's head around them (and removes the file).
    func writeLines(beside url: URL) throws -> URL {
        let directory = url.deletingLastPathComponent()
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let temporary = directory.appendingPathComponent(".\(url.lastPathComponent).\(UUID().uuidString).lines.tmp")
        do {
            try writeSortedLines(to: temporary)
        } catch {
            try? FileManager.default.removeItem(at: temporary)
            throw error
        }
        return temporary
    }

    private func writeSortedLines(to temporary: URL) throws {
        try Self.writeFile(at: temporary) { handle in
            var buffer = Data()
            var first = true
            try forEachLine(failedOnly: false) { json in
                buffer.append(contentsOf: (first ? "\n" : ",\n").utf8)
                buffer.append(json)
                first = false
                if buffer.count > 1 << 20 {
                    try handle.write(contentsOf: buffer)
                    buffer.removeAll(keepingCapacity: true)
                }
            }
            try handle.write(contentsOf: buffer)
        }
    }

    /// Writes `report` as JSON to `url` (atomically), with every logged source as its
    /// `sources`, one per line, in identifier order; `report.sources` is ignored. `lines` is
    /// what ``writeLines(beside:)`` wrote for it, if it ran; it is removed either way.
    func write(_ report: WarmReport, to url: URL, lines: URL? = nil) throws {
        let lines = try lines ?? writeLines(beside: url)
        defer { try? FileManager.default.removeItem(at: lines) }
        var head = report
        head.sources = []
        let text = String(decoding: try encoder.encode(head), as: UTF8.self)
        // Inside a JSON string every quote is escaped, so this spelling only occurs as the key.
        guard let range = text.range(of: "\"sources\":[]") else {
            throw CocoaError(.coderInvalidValue)
        }
        let temporary = url.deletingLastPathComponent()
            .appendingPathComponent(".\(url.lastPathComponent).\(UUID().uuidString).tmp")
        do {
            try Self.writeFile(at: temporary) { handle in
                try handle.write(contentsOf: Data((text[..<range.lowerBound] + "\"sources\":[").utf8))
                let reader = try FileHandle(forReadingFrom: lines)
                defer { try? reader.close() }
                var empty = true
                while let chunk = try reader.read(upToCount: 1 << 20), !chunk.isEmpty {
                    try handle.write(contentsOf: chunk)
                    empty = false
                }
                try handle.write(contentsOf: Data(((empty ? "]" : "\n]") + text[range.upperBound...] + "\n").utf8))
            }
        } catch {
            try? FileManager.default.removeItem(at: temporary)
            throw error
        }
        if rename(temporary.path, url.path) != 0 {
            let code = errno
            try? FileManager.default.removeItem(at: temporary)
            throw POSIXError(POSIXErrorCode(rawValue: code) ?? .EIO)
        }
    }

    /// Creates the file at `path` and lets `body` write it (the file stays when `body` throws:
    /// the caller removes it).
    private static func writeFile(at url: URL, _ body: (FileHandle) throws -> Void) throws {
        // A plain `open`: FileManager's createFile writes an empty file atomically (a temporary
        // file, a flush and a rename) before anything is written to it.
        let descriptor = open(url.path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else {
            throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO)
        }
        let handle = FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
        defer { try? handle.close() }
        try body(handle)
    }

    /// The lines in identifier order. Only the identifiers are sorted (with each line's row id);
    /// the lines, about a kilobyte each, are then read by row id: sorting the lines themselves
    /// moved every byte of them through SQLite's sorter.
    private func forEachLine(failedOnly: Bool, _ body: (Data) throws -> Void) throws {
        let order = try connection.statement("""
            SELECT rowid AS line FROM \(Lines.table) \(failedOnly ? "WHERE \(Lines.failed) = 1 " : "")\
            ORDER BY \(Lines.identifier)
            """)
        defer { try? order.reset() }
        let line = try connection.statement("SELECT \(Lines.json) FROM \(Lines.table) WHERE rowid = ?")
        defer { try? line.reset() }
        while try order.step() {
            try line.reset()
            guard try line.bind(.integer(Int64(order.int("line")))).step() else { continue }
            try body(line.blob(Lines.json) ?? Data())
        }
    }
}

extension SourceReport {
    /// The report as one line of compact JSON with sorted keys, the very text `JSONEncoder` makes
    /// with `[.sortedKeys, .withoutEscapingSlashes]`, written directly: a run logs a line per
    /// source, and `JSONEncoder` took ten times as long (a tenth of a re-warm's CPU with
    /// `--report`). `nil` when the report holds what this does not cover (a failure, a string
    /// with a character JSON escapes, a number that is not finite): the log then uses `JSONEncoder`.
    /// Tests compare the two on reports of every shape.
    var jsonLine: [UInt8]? {
        guard failure == nil, seconds.isFinite else { return nil }
        var out: [UInt8] = []
        out.reserveCapacity(320 + 400 * variants.count)
        func key(_ name: StaticString) {
            out.append(UInt8(ascii: "\""))
            out.append(contentsOf: UnsafeBufferPointer(start: name.utf8Start, count: name.utf8CodeUnitCount))
            out.append(contentsOf: "\":".utf8)
        }
        func string(_ text: String) -> Bool {
            guard !text.utf8.contains(where: { $0 < 0x20 || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") })
            else { return false }
            out.append(UInt8(ascii: "\""))
            out.append(contentsOf: text.utf8)
            out.append(UInt8(ascii: "\""))
            return true
        }
        func strings(_ texts: [String]) -> Bool {
            out.append(UInt8(ascii: "["))
            for (index, text) in texts.enumerated() {
                if index > 0 { out.append(UInt8(ascii: ",")) }
                guard string(text) else { return false }
            }
            out.append(UInt8(ascii: "]"))
            return true
        }
        func number(_ value: Int) { out.append(contentsOf: String(value).utf8) }
        // JSONEncoder writes a whole number without its ".0".
        func number(_ value: Double) {
            var text = "\(value)"
            if text.hasSuffix(".0") { text.removeLast(2) }
            out.append(contentsOf: text.utf8)
        }
        func comma() { out.append(UInt8(ascii: ",")) }

        out.append(UInt8(ascii: "{"))
        key("bytesDownloaded"); number(bytesDownloaded); comma()
        key("identifier"); guard string(identifier) else { return nil }; comma()
        key("listedAt"); guard string(listedAt) else { return nil }; comma()
        key("location"); guard string(location) else { return nil }; comma()
        if let originalBytes { key("originalBytes"); number(originalBytes); comma() }
        if let originalSHA256 { key("originalSHA256"); guard string(originalSHA256) else { return nil }; comma() }
        key("seconds"); number(seconds); comma()
        key("status"); guard string(status.rawValue) else { return nil }; comma()
        key("variants"); out.append(UInt8(ascii: "["))
        for (index, variant) in variants.enumerated() {
            if index > 0 { comma() }
            out.append(UInt8(ascii: "{"))
            if let action = variant.action { key("action"); guard string(action.rawValue) else { return nil }; comma() }
            key("blob"); guard string(variant.blob) else { return nil }; comma()
            key("bytes"); number(variant.bytes); comma()
            key("cacheKey"); guard string(variant.cacheKey) else { return nil }; comma()
            if let quality = variant.encoderQuality { key("encoderQuality"); number(quality); comma() }
            key("format"); guard string(variant.format) else { return nil }; comma()
            key("pixelHeight"); number(variant.pixelHeight); comma()
            key("pixelWidth"); number(variant.pixelWidth); comma()
            key("presets"); guard strings(variant.presets) else { return nil }
            if let score = variant.qualityScore {
                guard score.isFinite else { return nil }
                comma(); key("qualityScore"); number(score)
            }
            if let target = variant.qualityTarget { comma(); key("qualityTarget"); number(target) }
            out.append(UInt8(ascii: "}"))
        }
        out.append(UInt8(ascii: "]")); comma()
        key("warnings"); guard strings(warnings) else { return nil }
        out.append(UInt8(ascii: "}"))
        return out
    }
}
