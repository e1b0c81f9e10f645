import Foundation
import Yams
import WarmCache

/// Reads a `warm-cache` manifest, validates all of it, and expands it into a ``WarmPlan``.
///
///     let plan = try ManifestLoader().load(contentsOf: URL(fileURLWithPath: "manifest.yml"))
///
/// Validation happens before any work and reports every problem at once: a thrown
/// ``ManifestError`` lists them compiler-style (`manifest.yml:12:7: error: ...`). Relative
/// paths (`output`, `path`, `urls_from`) are resolved against the manifest's directory.
/// `docs/manifest.md` describes the format.
public struct ManifestLoader: Sendable {
    /// Variables for `${NAME}` references (in `output`, `fetch.user_agent` and header values).
    public var environment: [String: String]

    public init(environment: [String: String] = ProcessInfo.processInfo.environment) {
        self.environment = environment
    }

    /// Loads the manifest file at `url`.
    public func load(contentsOf url: URL) throws(ManifestError) -> WarmPlan {
        let fileURL = url.standardizedFileURL
        let data: Data
        do {
            data = try Data(contentsOf: fileURL)
        } catch {
            throw Self.fileError(fileURL, "cannot read the manifest: \(Self.reason(for: error))")
        }
        guard let yaml = String(data: data, encoding: .utf8) else {
            let (line, column) = Self.firstInvalidUTF8(in: data)
            throw ManifestError(diagnostics: [ManifestDiagnostic(
                .error, at: ManifestLocation(file: fileURL.path, line: line, column: column),
                "this byte is not UTF-8 text; save the manifest as UTF-8 (a Latin-1 or Windows-1252 character?)")])
        }
        return try load(yaml: yaml, fileURL: fileURL)
    }

    /// Loads manifest text as if read from `fileURL`, which names it in diagnostics and anchors
    /// its relative paths. The file itself need not exist (tests load text directly).
    public func load(yaml: String, fileURL: URL) throws(ManifestError) -> WarmPlan {
        let file = fileURL.standardizedFileURL
        let diagnostics = ManifestDiagnostics()
        let reader = ManifestNodeReader(file: file.path, diagnostics: diagnostics)
        guard let root = compose(yaml, reader: reader) else {
            throw ManifestError(diagnostics: diagnostics.sorted(.error))
        }
        let parser = ManifestParser(reader: reader, environment: ManifestEnvironment(variables: environment),
                                    sourceLines: yaml.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline))
        let manifest = parser.parse(root: root)
        let plan = PlanBuilder(manifest: manifest, manifestURL: file, diagnostics: diagnostics).build()
        guard var plan, !diagnostics.hasErrors else {
            throw ManifestError(diagnostics: diagnostics.sorted(.error))
        }
        plan.warnings = diagnostics.sorted(.warning)
        return plan
    }

    /// The document's root node, or `nil` after reporting a syntax error or an empty manifest.
    ///
    /// A key written twice in one block mapping is reported where it is written again (with a
    /// note at the first), then that second entry is blanked out and the text composed again, so
    /// the rest of the manifest is still checked and every other problem reported too.
    private func compose(_ yaml: String, reader: ManifestNodeReader) -> Node? {
        var lines = yaml.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline).map(String.init)
        var text = yaml
        for _ in 0..<100 {
            do {
                return try composeOnce(text, reader: reader)
            } catch YamlError.duplicatedKeysInMapping(let duplicates, let context) {
                let first = ManifestLocation(file: reader.file, line: context.mark.line, column: context.mark.column)
                guard let key = duplicates.first,
                      let again = Self.laterEntry(key: key, firstLine: context.mark.line,
                                                  column: context.mark.column, in: lines) else {
                    let (message, line, column) = Self.describe(.duplicatedKeysInMapping(duplicates: duplicates,
                                                                                          context: context), yaml: text)
                    reader.diagnostics.error(message, at: ManifestLocation(file: reader.file, line: line, column: column))
                    return nil
                }
                reader.diagnostics.error("key '\(key)' is written twice in the same mapping; keep one",
                                         at: ManifestLocation(file: reader.file, line: again.lowerBound + 1,
                                                              column: context.mark.column),
                                         notes: [("first written here", first)])
                for index in again { lines[index] = "" }
                text = lines.joined(separator: "\n")
            } catch {
                return nil
            }
        }
        return nil
    }

    /// The lines (0-based) of the next entry with key `key` in the block mapping whose earlier
    /// entry starts at `firstLine`:`column` (1-based): the key's line and its deeper-indented
    /// continuation. `nil` for flow mappings or anything not laid out as a plain block mapping.
    static func laterEntry(key: String, firstLine: Int, column: Int, in lines: [String]) -> Range<Int>? {
        let indent = column - 1
        func indentation(_ line: String) -> Int? {
            let trimmed = line.drop { $0 == " " }
            if trimmed.isEmpty || trimmed.hasPrefix("#") { return nil }
            return line.count - trimmed.count
        }
        func isKey(_ line: String) -> Bool {
            let content = line.dropFirst(indent)
            for written in [key, "\"\(key)\"", "'\(key)'"] where content.hasPrefix(written) {
                let rest = content.dropFirst(written.count).drop { $0 == " " }
                if rest.hasPrefix(":") { return true }
            }
            return false
        }
        var index = firstLine  // the line after the first occurrence (0-based)
        while index < lines.count {
            guard let level = indentation(lines[index]) else { index += 1; continue }
            if level < indent { return nil }
            if level == indent, isKey(lines[index]) {
                var end = index + 1
                while end < lines.count, indentation(lines[end]).map({ $0 > indent }) ?? true { end += 1 }
                return index..<end
            }
            index += 1
        }
        return nil
    }

    /// The 1-based line and column of the first byte that is not valid UTF-8.
    static func firstInvalidUTF8(in data: Data) -> (line: Int, column: Int) {
        let bytes = [UInt8](data)
        var line = 1, column = 1, index = 0
        while index < bytes.count {
            let byte = bytes[index]
            let length: Int
            switch byte {
            case 0x00...0x7F: length = 1
            case 0xC2...0xDF: length = 2
            case 0xE0...0xEF: length = 3
            case 0xF0...0xF4: length = 4
            default: return (line, column)
            }
            guard index + length <= bytes.count,
                  bytes[(index + 1)..<(index + length)].allSatisfy({ $0 & 0xC0 == 0x80 }),
                  String(bytes: bytes[index..<(index + length)], encoding: .utf8) != nil
            else { return (line, column) }
            if byte == 0x0A { line += 1; column = 1 } else { column += 1 }
            index += length
        }
        return (line, column)
    }

    private func composeOnce(_ yaml: String, reader: ManifestNodeReader) throws(YamlError) -> Node? {
        let start = ManifestLocation(file: reader.file, line: 1, column: 1)
        do {
            guard let root = try Yams.compose(yaml: yaml), !root.isNull else {
                reader.diagnostics.error("the manifest is empty; it needs at least 'version', 'output' and 'images'",
                                         at: start)
                return nil
            }
            return root
        } catch YamlError.duplicatedKeysInMapping(let duplicates, let context) {
            throw .duplicatedKeysInMapping(duplicates: duplicates, context: context)
        } catch let error as YamlError {
            let (message, line, column) = Self.describe(error, yaml: yaml)
            reader.diagnostics.error(message, at: ManifestLocation(file: reader.file, line: line, column: column))
        } catch {
            reader.diagnostics.error("cannot parse the manifest: \(PlainReason.of(error))", at: start)
        }
        return nil
    }

    /// A YAML error as a message and a 1-based position.
    static func describe(_ error: YamlError, yaml: String) -> (String, Int, Int) {
        func context(_ context: YamlError.Context?) -> String {
            guard let context else { return "" }
            return " (\(context.text), from line \(context.mark.line) column \(context.mark.column))"
        }
        switch error {
        case .scanner(let ctx, let problem, let mark, _), .parser(let ctx, let problem, let mark, _),
             .composer(let ctx, let problem, let mark, _):
            return ("YAML syntax error: \(problem)\(context(ctx))", mark.line, mark.column)
        case .duplicatedKeysInMapping(let duplicates, let ctx):
            let keys = duplicates.map { "'\($0)'" }.joined(separator: ", ")
            return ("key \(keys) appears more than once in the same mapping (first written here); keep one",
                    ctx.mark.line, ctx.mark.column)
        case .reader(let problem, let offset, _, _):
            let prefix = offset.map { yaml.prefix($0) } ?? ""
            let line = prefix.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline)
            return ("cannot read the manifest: \(problem)", line.count, (line.last?.unicodeScalars.count ?? 0) + 1)
        default:
            return ("cannot parse the manifest: \(PlainReason.of(error))", 1, 1)
        }
    }

    private static func fileError(_ url: URL, _ message: String) -> ManifestError {
        ManifestError(diagnostics: [ManifestDiagnostic(.error, at: ManifestLocation(file: url.path, line: 1, column: 1),
                                                       message)])
    }

    private static func reason(for error: any Error) -> String {
        PlainReason.of(error)
    }
}
