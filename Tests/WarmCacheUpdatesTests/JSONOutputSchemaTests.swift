import Foundation
import Testing
import WarmCacheTestSupport

/// Every `--json` output of `warm-cache` (and the contact sheet's embedded data) against one
/// schema, written once here: required keys, JSON types, recursively; a key the schema does not
/// know fails, and docs/json.md lists exactly the schema's keys with the same types.
@Suite("JSON outputs")
struct JSONOutputSchemaTests {
    // MARK: The schema

    /// A JSON type. `.object` and `.row` name an entry of ``objects``; a row is an array whose
    /// positions are that entry's keys `0`, `1`, ….
    indirect enum Kind: Equatable, Sendable, CustomStringConvertible {
        case string, integer, number, boolean, null
        case array(Kind)
        case map(Kind)
        case object(String)
        case row(String)
        /// One or the other, e.g. an integer or the string `auto`.
        case either(Kind, Kind)

        /// As docs/json.md writes it in its type column.
        var description: String {
            switch self {
            case .string: "string"
            case .integer: "integer"
            case .number: "number"
            case .boolean: "boolean"
            case .null: "null"
            case .array(let element): "array of \(element)"
            case .map(let value): "map of \(value)"
            case .object(let name), .row(let name): name
            case .either(let one, let other): "\(one) or \(other)"
            }
        }
    }

    /// Each object's keys; a key ending in `?` may be absent.
    static let objects: [String: [String: Kind]] = [
        "inspect --json": [
            "reportVersion": .integer, "path": .string, "formatVersion": .string, "generator": .string,
            "sources": .integer, "variants": .integer, "files": .integer, "bytes": .integer,
            "originalBytes": .integer, "placeholders": .integer, "byFormat": .array(.object("group")),
            "byVariant": .array(.object("group")), "byPreset": .array(.object("group")),
            "largest": .array(.object("variant")), "statement?": .object("statement"),
        ],
        "group": ["name": .string, "variants": .integer, "files": .integer, "bytes": .integer],
        "variant": [
            "cacheKey": .string, "presets": .array(.string), "format": .string, "pixelWidth": .integer,
            "pixelHeight": .integer, "bytes": .integer, "blob": .string, "qualityTarget?": .integer,
            "encoderQuality?": .integer, "qualityScore?": .number,
        ],
        "statement": [
            "version": .integer, "keyIDs": .array(.string), "signedAt": .string, "expiresAt": .string,
            "expired": .boolean, "namesIndex": .boolean,
        ],
        "inspect --list --json": [
            "reportVersion": .integer, "path": .string, "sources": .array(.object("listed source")),
        ],
        "listed source": [
            "identifier": .string, "format": .string, "pixelWidth": .integer, "pixelHeight": .integer,
            "originalBytes": .integer, "variants": .array(.object("variant")),
        ],
        "verify --json": [
            "reportVersion": .integer, "path": .string, "variantsChecked": .integer, "blobsChecked": .integer,
            "bytesHashed": .integer, "problems": .array(.object("problem")), "warnings": .array(.object("problem")),
            "version?": .integer, "keyID?": .string, "expiresAt?": .string,
        ],
        "problem": [
            "kind": .string, "subject": .string, "detail": .string, "sources?": .array(.string),
            "cacheKeys?": .array(.string), "repair?": .string,
        ],
        "lookup --json": [
            "reportVersion": .integer, "hit": .boolean, "path?": .string, "format?": .string,
            "pixelWidth?": .integer, "pixelHeight?": .integer, "bytes?": .integer, "cacheKey?": .string,
            "blob?": .string, "hasAlpha?": .boolean, "placeholder?": .object("placeholder"),
            "reason?": .string, "suggestion?": .string,
        ],
        "placeholder": ["thumbHash?": .string, "blurHash?": .string, "averageColor?": .object("colour")],
        "colour": ["red": .integer, "green": .integer, "blue": .integer, "alpha": .integer],
        "plan --json": [
            "reportVersion": .integer, "manifest": .string, "output": .string, "fingerprint": .string,
            "shard?": .string, "fetch": .object("fetch"), "summary": .object("plan summary"),
            "sources": .array(.object("planned source")), "warnings": .array(.string),
        ],
        "plan summary": [
            "sources": .integer, "remoteSources": .integer, "localSources": .integer, "variants": .integer,
            "byFormat": .array(.object("plan group")), "byPreset": .array(.object("plan group")),
        ],
        "plan group": ["name": .string, "variants": .integer],
        "planned source": [
            "identifier": .string, "location": .string, "listedAt": .string, "placeholders": .array(.string),
            "variants": .array(.object("planned variant")),
        ],
        "planned variant": [
            "preset": .string, "width?": .integer, "height?": .integer, "scale": .number, "fit": .string,
            "gravity?": .string, "background?": .string, "upscale": .boolean, "format": .string,
            "quality?": .map(.either(.integer, .string)), "qualityTarget?": .integer, "candidates?": .array(.string),
            "alphaCandidates?": .array(.string), "options?": .object("encoding options"),
            "processors?": .array(.string),
        ],
        "encoding options": [
            "lossless?": .boolean, "progressive?": .boolean, "chromaSubsampling?": .boolean, "effort?": .integer,
            "palette?": .boolean, "keepICCProfile?": .boolean, "speed?": .string,
        ],
        "fetch": [
            "concurrency": .integer, "perHost": .integer, "connectTimeout": .number, "requestTimeout": .number,
            "retries": .integer, "retryDelay": .number, "maxBytes": .integer, "maxRedirects": .integer,
            "userAgent": .string, "headers": .array(.object("header")), "hostHeaders": .map(.array(.object("header"))),
            "proxies": .object("proxies"),
        ],
        "header": ["name": .string, "value": .string],
        "proxies": ["http?": .string, "https?": .string, "bypass": .array(.string)],
        "plan --shards N --json": ["reportVersion": .integer, "shards": .array(.object("shard"))],
        "shard": ["shard": .string, "sources": .integer, "variants": .integer],
        "pull --json": [
            "reportVersion": .integer, "outcome": .string, "path": .string, "requests": .integer,
            "version?": .integer, "expiresAt?": .string, "keyID?": .string, "statementBytes": .integer,
            "indexBytes": .integer, "blobsDownloaded": .integer, "blobBytesDownloaded": .integer,
            "blobsReused": .integer, "blobsReferenced": .integer, "blobBytesReferenced": .integer,
            "blobsRemoved": .integer, "bytesDownloaded": .integer,
        ],
        "error": ["error": .string, "problems?": .array(.object("manifest problem"))],
        "manifest problem": [
            "file": .string, "line": .integer, "column": .integer, "message": .string,
            "notes?": .array(.object("manifest note")),
        ],
        "manifest note": ["file": .string, "line": .integer, "column": .integer, "message": .string],
        "contact sheet data": [
            "reportVersion": .integer, "summary": .object("contact sheet summary"), "objects": .string,
            "formats": .array(.string), "extensions": .array(.string), "presets": .array(.string),
            "byFormat": .array(.row("group row")), "byPreset": .array(.row("group row")),
            "sources": .array(.row("source row")), "failures": .array(.row("failure row")),
        ],
        "contact sheet summary": [
            "path": .string, "generator": .string, "formatVersion": .string, "sources": .integer,
            "variants": .integer, "files": .integer, "bytes": .integer, "originalBytes": .integer,
            "placeholders": .integer, "whyNoBundle": .string,
        ],
        "group row": ["0": .string, "1": .integer, "2": .integer],
        "source row": [
            "0": .string, "1": .string, "2": .integer, "3": .integer, "4": .integer, "5": .string, "6": .string,
            "7": .string, "8": .array(.row("variant row")), "9": .either(.string, .null),
        ],
        "variant row": [
            "0": .string, "1": .integer, "2": .integer, "3": .integer, "4": .integer, "5": .string,
            "6": .array(.integer),
        ],
        "failure row": ["0": .string, "1": .string, "2": .string, "3": .string],
    ]

    // MARK: Checking a value

    /// A parsed JSON value that keeps booleans, integers and other numbers apart.
    enum Value: Decodable {
        case null, boolean(Bool), integer(Int), number(Double), string(String), array([Value])
        case object([String: Value])

        init(from decoder: Decoder) throws {
            let container = try decoder.singleValueContainer()
            if container.decodeNil() { self = .null }
            else if let value = try? container.decode(Bool.self) { self = .boolean(value) }
            else if let value = try? container.decode(Int.self) { self = .integer(value) }
            else if let value = try? container.decode(Double.self) { self = .number(value) }
            else if let value = try? container.decode(String.self) { self = .string(value) }
            else if let value = try? container.decode([Value].self) { self = .array(value) }
            else { self = .object(try container.decode([String: Value].self)) }
        }
    }

    /// What in `value` differs from `kind`, as `path: problem` lines.
    static func problems(_ value: Value, _ kind: Kind, at path: String = "$") -> [String] {
        switch (kind, value) {
        case (.either(let one, let other), _):
            return problems(value, one, at: path).isEmpty ? [] : problems(value, other, at: path)
        case (.null, .null), (.string, .string), (.integer, .integer), (.number, .integer), (.number, .number),
             (.boolean, .boolean): return []
        case (.array(let element), .array(let items)):
            return items.enumerated().flatMap { problems($1, element, at: "\(path)[\($0)]") }
        case (.map(let valueKind), .object(let entries)):
            return entries.flatMap { problems($1, valueKind, at: "\(path).\($0)") }
        case (.object(let name), .object(let entries)):
            guard let keys = objects[name] else { return ["\(path): no schema named \(name)"] }
            var found: [String] = []
            for (key, kind) in keys {
                let optional = key.hasSuffix("?")
                let name = optional ? String(key.dropLast()) : key
                if let entry = entries[name] {
                    found += problems(entry, kind, at: "\(path).\(name)")
                } else if !optional {
                    found.append("\(path): missing \(name)")
                }
            }
            let known = Set(keys.keys.map { $0.hasSuffix("?") ? String($0.dropLast()) : $0 })
            found += entries.keys.filter { !known.contains($0) }.sorted().map { "\(path): unknown key \($0)" }
            return found
        case (.row(let name), .array(let items)):
            guard let positions = objects[name] else { return ["\(path): no schema named \(name)"] }
            guard items.count == positions.count else {
                return ["\(path): \(items.count) items, the \(name) has \(positions.count)"]
            }
            return items.enumerated().flatMap { problems($1, positions[String($0)] ?? .string, at: "\(path)[\($0)]") }
        default:
            return ["\(path): expected \(kind), found \(value)"]
        }
    }

    /// Parses `text` and checks it against the named object.
    func expectMatches(_ text: String, _ name: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let value = try JSONDecoder().decode(Value.self, from: Data(text.utf8))
        let found = Self.problems(value, .object(name))
        #expect(found.isEmpty, "\(name): \(found.joined(separator: "; "))\n\(text)", sourceLocation: sourceLocation)
    }

    // MARK: The outputs

    @Test("each --json output and the contact sheet's data match their schema")
    func outputsMatchTheirSchema() async throws {
        let published = try PublishedBundle(sources: 3)
        let server = try await FixtureServer.start()
        try published.serve(on: server)
        let base = server.url("/pub/Images.warmcache/").absoluteString
        let local = temporaryUpdateDirectory()
        let key = ["--public-key", TestKeys.publisher.publicKey.base64]

        let pulled = try await WarmCacheCLI.run(["pull", base, local.path, "--json"] + key)
        #expect(pulled.status == 0, "\(pulled)")
        try expectMatches(pulled.stdout, "pull --json")
        let again = try await WarmCacheCLI.run(["pull", base, local.path, "--json"] + key)
        try expectMatches(again.stdout, "pull --json")
        try await server.shutdown()

        let page = local.deletingLastPathComponent().appendingPathComponent("sheet.html")
        let inspected = try await WarmCacheCLI.run(["inspect", local.path, "--json", "--html", page.path])
        #expect(inspected.status == 0, "\(inspected)")
        try expectMatches(inspected.stdout, "inspect --json")
        #expect(inspected.stdout.contains("\"statement\""), "a signed bundle's statement is covered")
        let html = try String(contentsOf: page, encoding: .utf8)
        let data = try #require(html.components(separatedBy: "id=\"sheet-data\">").last?
            .components(separatedBy: "</script>").first)
        try expectMatches(data, "contact sheet data")

        let listed = try await WarmCacheCLI.run(["inspect", local.path, "--list", "--json"])
        try expectMatches(listed.stdout, "inspect --list --json")
        let verified = try await WarmCacheCLI.run(["verify", local.path, "--json"])
        #expect(verified.status == 0, "\(verified)")
        try expectMatches(verified.stdout, "verify --json")
        let checked = try await WarmCacheCLI.run(["verify", local.path, "--json"] + key)
        #expect(checked.status == 0 && checked.stdout.contains("\"keyID\""), "\(checked)")
        try expectMatches(checked.stdout, "verify --json")

        let source = PublishedBundle.source(1).rawValue
        let hit = try await WarmCacheCLI.run(["lookup", local.path, source, "--size", "100x0", "--json"])
        #expect(hit.status == 0 && hit.stdout.contains("\"blob\""), "\(hit)")
        try expectMatches(hit.stdout, "lookup --json")
        let miss = try await WarmCacheCLI.run(["lookup", local.path, "https://img.test/none.jpg", "--size", "9x9",
                                               "--json"])
        #expect(miss.status == 2, "\(miss)")
        try expectMatches(miss.stdout, "lookup --json")

        // A damaged blob: verify's problems.
        let blob = try #require(try FileManager.default.subpathsOfDirectory(atPath: local.appendingPathComponent("objects").path)
            .first { $0.hasSuffix(".jpg") || $0.hasSuffix(".jpeg") })
        let blobURL = local.appendingPathComponent("objects").appendingPathComponent(blob)
        var bytes = try Data(contentsOf: blobURL)
        bytes[bytes.count / 2] ^= 0x55
        try bytes.write(to: blobURL)
        let damaged = try await WarmCacheCLI.run(["verify", local.path, "--json"])
        #expect(damaged.status == 2 && damaged.stdout.contains("hashMismatch"), "\(damaged)")
        try expectMatches(damaged.stdout, "verify --json")

        let failed = try await WarmCacheCLI.run(["inspect", local.appendingPathComponent("none").path, "--json"])
        #expect(failed.status != 0)
        try expectMatches(failed.stdout, "error")

        // plan: a local file and a URL, every kind of variant key the manifest can ask for.
        let folder = local.deletingLastPathComponent()
        let invalid = folder.appendingPathComponent("invalid.yml")
        try "version: 1\noutput: Out.warmcache\nimages:\n  - url: 42\n    presetz: []\n"
            .write(to: invalid, atomically: true, encoding: .utf8)
        let refused = try await WarmCacheCLI.run(["plan", invalid.path, "--json"])
        #expect(refused.status == 65 && refused.stdout.contains("\"problems\""), "\(refused)")
        try expectMatches(refused.stdout, "error")
        try Data("png".utf8).write(to: folder.appendingPathComponent("a.png"))
        let manifest = folder.appendingPathComponent("manifest.yml")
        try """
        version: 1
        output: Out.warmcache
        platforms: { ios: "16.0" }
        defaults: { quality: { png: 90, webp: 70 }, placeholder: thumbhash }
        presets:
          round: { width: 48, height: 48, fit: contain, background: "#ffffff", processors: [{ round: 8 }], formats: [png] }
          small: { width: 64, formats: [smallest] }
          sharp: { width: 32, formats: [webp], quality: auto, lossless: true }
        fetch:
          headers: { Authorization: "Bearer x" }
          hosts: { cdn.example.com: { headers: { X-Key: "y" } } }
          proxy: http://proxy.test:3128
        images:
          - path: a.png
            key: asset://a
            presets: [round, small, sharp]
          - url: https://cdn.example.com/b.jpg
            presets: [small]
        """.write(to: manifest, atomically: true, encoding: .utf8)
        let plan = try await WarmCacheCLI.run(["plan", manifest.path, "--json"])
        #expect(plan.status == 0, "\(plan)")
        try expectMatches(plan.stdout, "plan --json")
        let shard = try await WarmCacheCLI.run(["plan", manifest.path, "--json", "--shard", "1/2"])
        try expectMatches(shard.stdout, "plan --json")
        let shards = try await WarmCacheCLI.run(["plan", manifest.path, "--json", "--shards", "2"])
        try expectMatches(shards.stdout, "plan --shards N --json")
    }

    // MARK: The docs

    /// docs/json.md: each `### name` section's table, first column `key` (in backticks, `?` for
    /// a key that may be absent), second the type as ``Kind/description`` writes it.
    static func documented() throws -> [String: [String: String]] {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let text = try String(contentsOf: root.appendingPathComponent("docs/json.md"), encoding: .utf8)
        var sections: [String: [String: String]] = [:]
        var current: String?
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("### ") {
                current = line.dropFirst(4).replacingOccurrences(of: "`", with: "")
                sections[current!] = [:]
            } else if line.hasPrefix("## ") {
                current = nil
            } else if let section = current, line.hasPrefix("| `") {
                let cells = line.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) }
                guard cells.count >= 2 else { continue }
                sections[section]?[cells[0].replacingOccurrences(of: "`", with: "")] = cells[1]
            }
        }
        return sections
    }

    @Test("docs/json.md documents exactly the schema's keys, with their types")
    func docsListTheSchema() throws {
        let docs = try Self.documented()
        #expect(Set(docs.keys) == Set(Self.objects.keys),
                "sections only in the docs: \(Set(docs.keys).subtracting(Self.objects.keys).sorted()); only in the schema: \(Set(Self.objects.keys).subtracting(docs.keys).sorted())")
        for (name, keys) in Self.objects {
            guard let documented = docs[name] else { continue }
            let expected = Dictionary(uniqueKeysWithValues: keys.map { ($0.key, $0.value.description) })
            #expect(documented == expected, "\(name): the docs say \(documented.sorted { $0.key < $1.key }), the schema \(expected.sorted { $0.key < $1.key })")
        }
    }
}
