import Foundation
import Testing
@testable import WarmCacheBuilder

@Suite("Source report log")
struct SourceReportLogTests {
    static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }()

    static func variant(_ scale: Int, action: VariantReport.Action? = .reused, presets: [String] = ["thumb"]) -> VariantReport {
        VariantReport(cacheKey: "https://cdn.example.com/a.jpg|64x64|@\(scale)x|cover-centre|jpeg-q80|-",
                      presets: presets, format: "jpeg", pixelWidth: 64 * scale, pixelHeight: 64 * scale,
                      bytes: 1282 * scale, blob: "objects/b4/b42a3f36a8c30e13b37f56dfaa8\(scale).jpg", action: action)
    }

    /// A variant with a quality target, its search's quality and score.
    static func perceptual(score: Double) -> VariantReport {
        var variant = variant(1)
        variant.cacheKey = "https://cdn.example.com/a.jpg|64x64|@1x|cover-centre|avif-target80|-"
        variant.qualityTarget = 80
        variant.encoderQuality = 57
        variant.qualityScore = score
        return variant
    }

    static func report(_ identifier: String = "https://cdn.example.com/a.jpg", seconds: Double = 0.00630927500242251,
                       status: SourceReport.Status = .revalidated, variants: [VariantReport] = [variant(1), variant(2)],
                       original: Bool = true, warnings: [String] = [], failure: SourceFailure? = nil) -> SourceReport {
        var report = SourceReport(identifier: identifier, location: identifier, status: status, bytesDownloaded: 20521,
                                  seconds: seconds, variants: variants, failure: failure, listedAt: "urls.txt:2:1")
        if original {
            report.originalBytes = 20521
            report.originalSHA256 = "0d2a1d8deb3efff4a704047488b5fbd09225e8721323db089a6ae014b58c4692"
        }
        report.warnings = warnings
        return report
    }

    /// The log writes report lines itself rather than through JSONEncoder (ten times faster); the
    /// text must be exactly JSONEncoder's, for every shape a report takes.
    @Test("a report line is JSONEncoder's text exactly, or left to JSONEncoder")
    func jsonLinesMatchJSONEncoder() throws {
        let reports: [SourceReport] = [
            Self.report(),
            Self.report(seconds: 0), Self.report(seconds: 2), Self.report(seconds: 1e-05), Self.report(seconds: 1e20),
            Self.report(seconds: 12.25), Self.report(status: .fetched), Self.report(status: .local, original: false),
            Self.report(variants: []), Self.report(variants: [Self.variant(1, action: nil, presets: [])]),
            Self.report(variants: [Self.variant(3, presets: ["card", "hero", "thumb"])]),
            Self.report(warnings: ["revalidation failed (timed out); using the cached original", "ünïcødé ✓ /slashes/"]),
            Self.report("https://cdn.example.com/ünïcødé/😀.jpg?a=1&b=%20#x"),
            Self.report(variants: [Self.perceptual(score: 82.47), Self.perceptual(score: 80), Self.perceptual(score: 79.1)]),
        ]
        for report in reports {
            let line = try #require(report.jsonLine, "\(report)")
            #expect(String(decoding: line, as: UTF8.self)
                    == String(decoding: try Self.encoder.encode(report), as: UTF8.self))
        }
        // What JSON escapes, a failure, a number JSON cannot hold: JSONEncoder's job.
        let others: [SourceReport] = [
            Self.report(warnings: ["a \"quoted\" word"]), Self.report(warnings: ["back\\slash"]),
            Self.report("https://cdn.example.com/a\tb.jpg"), Self.report(warnings: ["line\nbreak"]),
            Self.report(status: .failed, variants: [], failure: SourceFailure(.httpStatus, "404", httpStatus: 404)),
            Self.report(seconds: .infinity),
        ]
        for report in others {
            #expect(report.jsonLine == nil, "\(report)")
        }
    }

    @Test("the report file lists every logged source in identifier order, with the failures read back")
    func reportFileIsSortedAndComplete() throws {
        let log = try SourceReportLog(keepsEveryLine: true)
        let identifiers = (0..<1000).map { "https://cdn.example.com/\(String(($0 * 7919) % 1000)).jpg" }
        for batch in stride(from: 0, to: identifiers.count, by: 37) {
            try log.append(contentsOf: identifiers[batch..<min(batch + 37, identifiers.count)].map { identifier in
                identifier.hasSuffix("/13.jpg")
                    ? Self.report(identifier, status: .failed, variants: [], failure: SourceFailure(.timeout, "timed out"))
                    : Self.report(identifier)
            })
        }
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("wc-report-\(UUID().uuidString).json")
        defer { try? FileManager.default.removeItem(at: url) }
        let head = WarmReport(manifest: "m.yml", output: "Out.warmcache", status: .partial, seconds: 1, totals: .init(),
                              sources: [], warnings: [])
        try log.write(head, to: url)
        let written = try JSONDecoder().decode(WarmReport.self, from: Data(contentsOf: url))
        #expect(written.sources.map(\.identifier) == identifiers.sorted())
        #expect(written.sources.filter { $0.status == .failed }.map(\.identifier) == ["https://cdn.example.com/13.jpg"])
        #expect(try log.failures().map(\.identifier) == ["https://cdn.example.com/13.jpg"])
    }
}
