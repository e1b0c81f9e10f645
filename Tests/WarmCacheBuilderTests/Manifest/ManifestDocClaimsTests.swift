import Foundation
import Testing
import WarmCache
import WarmCacheImaging
@testable import WarmCacheBuilder

/// Every default docs/manifest.md states in its tables, held to the tool: a manifest that sets a
/// key to its stated default must load into exactly the plan of one that leaves the key out. A
/// table row that states a value this test does not know how to set fails, so a new default in
/// the docs cannot go unchecked.
@Suite struct ManifestDocClaimsTests {
    /// A stated default: the table's section (`## Variant settings`, …), its key, its value.
    struct Claim: CustomStringConvertible {
        var section: String
        var key: String
        var value: String
        var description: String { "\(section): \(key) = \(value)" }
    }

    /// What a table says when a key has no value of its own.
    static let absences: Set<String> = ["none", "encoder default", "from the environment", "from NO_PROXY"]

    /// The rows of every table with a `default` column, in sections of `##` headings.
    static func claims() throws -> [Claim] {
        let text = try String(contentsOf: RepositoryFiles.root.appendingPathComponent("docs/manifest.md"), encoding: .utf8)
        var claims: [Claim] = []
        var section = ""
        var defaultColumn: Int?
        for line in text.components(separatedBy: "\n") {
            if line.hasPrefix("## ") { section = String(line.dropFirst(3)) }
            guard line.hasPrefix("|") else { defaultColumn = nil; continue }
            // `\|` is a pipe inside a cell (`inside` \| `cover`), not a column.
            let cells = line.replacingOccurrences(of: "\\|", with: "\u{1}").split(separator: "|", omittingEmptySubsequences: false)
                .dropFirst().map { $0.trimmingCharacters(in: .whitespaces) }
            if cells.first == "key" {
                defaultColumn = cells.firstIndex { $0.hasSuffix("default") }
                continue
            }
            guard let column = defaultColumn, cells.count > column,
                  let key = cells[0].split(separator: "`").first.map(String.init), !key.hasPrefix("-") else { continue }
            let value = cells[column].replacingOccurrences(of: "`", with: "")
            if !absences.contains(value) { claims.append(Claim(section: section, key: key, value: value)) }
        }
        return claims
    }

    /// What the plan's variants become for an opaque and a transparent source: the specs the
    /// index stores (a request may carry a setting its encoder then drops).
    static func specs(_ plan: WarmPlan) -> [[VariantSpec]] {
        plan.sources[0].variants.flatMap { [$0.request.candidates(sourceHasAlpha: false), $0.request.candidates(sourceHasAlpha: true)] }
    }

    /// The plan of a manifest with `settings` in a preset (and `fetch`, `defaults` blocks).
    private func plan(preset settings: String = "", fetch: String = "", defaults: String = "") throws -> WarmPlan {
        var yaml = "version: 1\noutput: Out/Images.warmcache\n"
        if !defaults.isEmpty { yaml += "defaults: { \(defaults) }\n" }
        if !fetch.isEmpty { yaml += "fetch: { \(fetch) }\n" }
        yaml += "presets:\n  p: { width: 10, height: 10\(settings) }\nimages:\n  - { url: https://img.test/a.jpg, presets: [p] }\n"
        return try ManifestFixture().load(yaml)
    }

    @Test func everyStatedDefaultIsTheToolsOwn() throws {
        let claims = try Self.claims()
        #expect(claims.count >= 15, "\(claims)")
        for claim in claims {
            let setting = "\(claim.key): \(claim.value)"
            switch claim.section {
            case "Variant settings":
                // gravity only matters for cover, background for contain, quality_target and speed for auto.
                let fit = ["gravity": ", fit: cover", "background": ", fit: contain", "quality_target": ", quality: auto",
                           "speed": ", quality: auto"][claim.key] ?? ""
                let quoted = claim.key == "background" ? "\(claim.key): \"\(claim.value)\"" : setting
                let implicit = try Self.specs(plan(preset: fit))
                let explicit = try Self.specs(plan(preset: fit + ", " + quoted))
                #expect(explicit == implicit, "\(claim): setting it changes the variants")
            case "Fetch":
                #expect(try plan(fetch: setting).fetch == plan().fetch, "\(claim): setting it changes the fetch settings")
            case "Defaults":
                #expect(try plan(defaults: setting).sources == plan().sources, "\(claim): setting it changes the sources")
            default:
                Issue.record("\(claim): a default in a section this test does not check")
            }
        }
    }

    /// Credentials (an `Authorization` header) in the manifests of README, docs/ and the example
    /// sit under `fetch.hosts`, where they go to one host, never in `fetch.headers`, which every
    /// host receives.
    @Test func credentialsAreScopedToAHostInEveryDocumentedManifest() throws {
        let root = RepositoryFiles.root
        let docs = try FileManager.default.contentsOfDirectory(atPath: root.appendingPathComponent("docs").path)
            .filter { $0.hasSuffix(".md") }.map { "docs/" + $0 }
        var checked = 0
        for file in ["README.md", "manifest.example.yml"] + docs {
            let text = try String(contentsOf: root.appendingPathComponent(file), encoding: .utf8)
            let lines = text.components(separatedBy: "\n")
            var inCode = file.hasSuffix(".yml")
            for (number, line) in lines.enumerated() {
                if line.trimmingCharacters(in: .whitespaces).hasPrefix("```") { inCode.toggle(); continue }
                guard inCode, line.range(of: #"(^|[^-\w])Authorization:"#, options: .regularExpression) != nil,
                      !line.trimmingCharacters(in: .whitespaces).hasPrefix("#") else { continue }
                checked += 1
                #expect(Self.parents(of: number, in: lines).contains { $0.hasPrefix("hosts:") },
                        "\(file):\(number + 1): an Authorization header outside fetch.hosts is sent to every host")
            }
        }
        #expect(checked >= 3)
    }

    /// The YAML keys that enclose line `number` (by indentation), nearest first.
    static func parents(of number: Int, in lines: [String]) -> [String] {
        func indentation(_ line: String) -> Int { line.prefix { $0 == " " }.count }
        var level = indentation(lines[number])
        var parents: [String] = []
        for line in lines[..<number].reversed() where !line.trimmingCharacters(in: .whitespaces).isEmpty {
            guard indentation(line) < level else { continue }
            level = indentation(line)
            parents.append(line.trimmingCharacters(in: .whitespaces))
            if level == 0 { break }
        }
        return parents
    }

    /// The tool says the same: a credential in `fetch.headers` is a warning naming `fetch.hosts`.
    @Test func aCredentialSentToEveryHostIsAWarning() throws {
        let fixture = try ManifestFixture()
        let images = "images:\n  - { url: https://img.test/a.jpg, width: 10 }\n"
        let everyHost = try fixture.load("version: 1\noutput: Out/I.warmcache\nfetch:\n  headers: { Authorization: \"Bearer x\" }\n"
                                         + images)
        #expect(everyHost.warnings.map(\.description).contains { $0.contains("manifest.yml:4:14: warning: 'Authorization' in "
            + "fetch.headers is sent to every host; put credentials under fetch.hosts.<host>.headers") },
                "\(everyHost.warnings)")
        let oneHost = try fixture.load("version: 1\noutput: Out/I.warmcache\nfetch:\n  hosts:\n    img.test: { headers: "
                                       + "{ Authorization: \"Bearer x\" } }\n" + images)
        #expect(oneHost.warnings.isEmpty, "\(oneHost.warnings)")
    }
}
