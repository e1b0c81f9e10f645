import Foundation
import WarmCache
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

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
            CREATE TABLE lines (identifier TEXT NOT NULL, failed INTEGER NOT NULL, json BLOB NOT NULL);
            BEGIN;
            """)
    }

    /// Logs finished sources' lines, each source once. Lines are appended in the order they come
    /// (sources finish in no useful order; a table kept in identifier order would take each line
    /// as a random insert) and sorted once, when read.
    func append(contentsOf reports: [SourceReport]) throws {
        for report in reports where keepsEveryLine || report.status == .failed {
            try connection.statement("INSERT INTO lines (identifier, failed, json) VALUES (?, ?, ?)")
                .bind(.text(report.identifier), .int(report.status == .failed ? 1 : 0),
                      .blob(try encoder.encode(report))).run()
            pending += 1
            if pending >= 512 {
                pending = 0
                try connection.execute("COMMIT; BEGIN")
            }
        }
    }

    /// The sources that failed, in identifier order.
    func failures() throws -> [SourceReport] {
        var failures: [SourceReport] = []
        try forEachLine(failedOnly: true) { json in
            failures.append(try JSONDecoder().decode(SourceReport.self, from: json))
        }
        return failures
    }

    /// Writes `report` as JSON to `url` (atomically), with every logged source as its
    /// `sources`, one per line, in identifier order; `report.sources` is ignored.
    func write(_ report: WarmReport, to url: URL) throws {
        var head = report
        head.sources = []
        let text = String(decoding: try encoder.encode(head), as: UTF8.self)
        // Inside a JSON string every quote is escaped, so this spelling only occurs as the key.
        guard let range = text.range(of: "\"sources\":[]") else {
            throw CocoaError(.coderInvalidValue)
        }
        let directory = url.deletingLastPathComponent()
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let temporary = directory.appendingPathComponent(".\(url.lastPathComponent).\(UUID().uuidString).tmp")
        guard FileManager.default.createFile(atPath: temporary.path, contents: nil) else {
            throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: temporary.path])
        }
        do {
            let handle = try FileHandle(forWritingTo: temporary)
            defer { try? handle.close() }
            var buffer = Data(text[..<range.lowerBound].utf8)
            buffer.append(contentsOf: "\"sources\":[".utf8)
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
            buffer.append(contentsOf: (first ? "]" : "\n]").utf8)
            buffer.append(contentsOf: text[range.upperBound...].utf8)
            buffer.append(contentsOf: "\n".utf8)
            try handle.write(contentsOf: buffer)
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

    private func forEachLine(failedOnly: Bool, _ body: (Data) throws -> Void) throws {
        let statement = try connection.statement(failedOnly
            ? "SELECT json FROM lines WHERE failed = 1 ORDER BY identifier"
            : "SELECT json FROM lines ORDER BY identifier")
        defer { try? statement.reset() }
        while try statement.step() {
            try body(statement.blob(0) ?? Data())
        }
    }
}
