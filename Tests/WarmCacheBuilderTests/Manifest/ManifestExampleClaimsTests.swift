import Foundation
import Testing
import WarmCache
import WarmCacheImaging
@testable import WarmCacheBuilder

/// What `manifest.example.yml`'s comments state — defaults, ranges, the formats each encoder
/// option affects — read from the comments and held to the one place in code each lives, so
/// the example cannot drift from the tool. The comments follow a few regular forms:
/// `(default X)` after a fetch key, `Built-in default: X.` above a variant key, `N-M` ranges,
/// and `formats: what it does` after an encoder option.
@Suite struct ManifestExampleClaimsTests {
    let lines: [String]

    init() throws {
        let text = try String(contentsOf: RepositoryFiles.root.appendingPathComponent("manifest.example.yml"), encoding: .utf8)
        lines = text.components(separatedBy: "\n")
    }

    /// The comment of the line that sets `key` (commented out or not), within `section`.
    func comment(of key: String, in section: String) throws -> String {
        guard let start = lines.firstIndex(of: "\(section):") else { throw Missing("section \(section)") }
        let pattern = try Regex("^\\s+#?\\s*\(key):\\s*[^#]*#\\s*(.*)$")
        for line in lines[(start + 1)...] {
            if let first = line.first, first != " ", first != "#" { break }  // the next section
            if let match = try pattern.wholeMatch(in: line), let text = match.output[1].substring {
                return String(text)
            }
        }
        throw Missing("\(section).\(key)")
    }

    /// The `Built-in default: X.` of the comment block just above `key:` in `defaults`.
    func builtInDefault(of key: String) throws -> String {
        guard let index = lines.firstIndex(where: { $0.hasPrefix("  \(key):") }) else { throw Missing(key) }
        var block = ""
        for line in lines[..<index].reversed() {
            guard line.hasPrefix("  #") else { break }
            block = line.dropFirst(3).trimmingCharacters(in: .whitespaces) + " " + block
        }
        guard let match = block.firstMatch(of: /Built-in default: (.+?)\.\s*$/) else { throw Missing("default of \(key)") }
        return String(match.output.1)
    }

    struct Missing: Error, CustomStringConvertible {
        var what: String
        init(_ what: String) { self.what = what }
        var description: String { "manifest.example.yml states nothing for \(what)" }
    }

    static func range(_ text: some StringProtocol) -> ClosedRange<Int>? {
        guard let match = String(text).firstMatch(of: /(\d+)\s*[-–]\s*(\d+)/), let low = Int(match.output.1),
              let high = Int(match.output.2) else { return nil }
        return low...high
    }

    @Test func fetchDefaultsAreTheFetchersOwn() throws {
        let defaults = FetchSettings.defaults
        func stated(_ key: String) throws -> String {
            let text = try comment(of: key, in: "fetch")
            let match = try #require(text.firstMatch(of: /\(default ([^,;)]+)/), "no '(default X)' for fetch.\(key)")
            return String(match.output.1)
        }
        #expect(Int(try stated("concurrency")) == defaults.concurrency)
        #expect(Int(try stated("per_host")) == defaults.perHost)
        #expect(ManifestDuration.seconds(from: try stated("timeout")) == defaults.requestTimeout)
        #expect(ManifestDuration.seconds(from: try stated("connect_timeout")) == defaults.connectTimeout)
        #expect(Int(try stated("retries")) == defaults.retries)
        #expect(ManifestDuration.seconds(from: try stated("retry_delay")) == defaults.retryDelay)
        #expect(ManifestByteSize.bytes(from: try stated("max_bytes")) == defaults.maxBytes)
        #expect(Int(try stated("max_redirects")) == defaults.maxRedirects)
    }

    @Test func variantDefaultsAndRangesAreTheResolversAndEncoders() throws {
        #expect(try builtInDefault(of: "formats") == "[" + PlanVariantResolver.builtInFormats.map(\.description)
            .joined(separator: ", ") + "]")
        #expect(try builtInDefault(of: "scales") == "[" + PlanVariantResolver.builtInScales.map(String.init)
            .joined(separator: ", ") + "]")
        #expect(try builtInDefault(of: "quality_target") == String(PerceptualQuality.defaultTarget))
        #expect(try builtInDefault(of: "speed") == SearchSpeed.default.rawValue)

        // "Encoder quality per format: 1-100": every encoder with a quality takes exactly that.
        let qualityLine = try #require(lines.first { $0.contains("Encoder quality per format:") })
        let quality = try #require(Self.range(qualityLine))
        for row in EncoderTable.rows {
            if let range = row.quality?.range { #expect(range == quality, "\(row.format) quality \(range)") }
        }
        // "The SSIMULACRA2 score ... 30-100".
        let targetLine = try #require(lines.first { $0.contains("The SSIMULACRA2 score") })
        #expect(Self.range(targetLine) == PerceptualQuality.targetRange)
    }

    @Test func effortRangesAreTheEncoderTables() throws {
        // "webp 0-6, avif/heic 0-9, jxl 3-9, png 0-9, gif 1-10: slower = smaller"
        let text = try comment(of: "effort", in: "defaults")
        let claims = String(text.prefix { $0 != ":" })
        var stated: [ImageFormat: ClosedRange<Int>] = [:]
        for item in claims.split(separator: ",") {
            let parts = item.split(separator: " ", omittingEmptySubsequences: true)
            let range = try #require(parts.count == 2 ? Self.range(parts[1]) : nil, "cannot read '\(item)'")
            for name in parts[0].split(separator: "/") {
                let format = try #require(ImageFormat(rawValue: String(name)), "unknown format \(name)")
                stated[format] = range
            }
        }
        let actual = Dictionary(uniqueKeysWithValues: EncoderTable.rows.compactMap { row in
            row.effort.map { (row.format, $0.range) }
        })
        #expect(stated == actual)
    }

    @Test func encoderOptionsNameTheFormatsTheyAffect() throws {
        let options: [(key: String, setting: EncoderSetting)] = [
            ("progressive", .progressive), ("keep_icc", .keepICC), ("chroma_subsampling", .chromaSubsampling),
            ("lossless", .lossless), ("palette", .palette),
        ]
        for (key, setting) in options {
            let text = try comment(of: key, in: "defaults")
            let names = text.prefix { $0 != ":" }.split(separator: ",").flatMap { $0.split(separator: "/") }
                .map { $0.trimmingCharacters(in: .whitespaces) }
            let stated = Set(names.compactMap(ImageFormat.init(rawValue:)))
            #expect(stated.count == names.count, "\(key): '\(text)' names something that is not a format")
            #expect(stated == Set(EncoderTable.formats(honouring: setting)), "\(key): the example says \(stated.map(\.rawValue).sorted())")
        }
    }
}
