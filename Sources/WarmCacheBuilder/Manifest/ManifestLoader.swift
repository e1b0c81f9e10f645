import Foundation
import Yams

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
            throw Self.fileError(fileURL, "the manifest is not UTF-8 text")
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
    private func compose(_ yaml: String, reader: ManifestNodeReader) -> Node? {
        let start = ManifestLocation(file: reader.file, line: 1, column: 1)
        do {
            guard let root = try Yams.compose(yaml: yaml), !root.isNull else {
                reader.diagnostics.error("the manifest is empty; it needs at least 'version', 'output' and 'images'",
                                         at: start)
                return nil
            }
            return root
        } catch let error as YamlError {
            let (message, line, column) = Self.describe(error, yaml: yaml)
            reader.diagnostics.error(message, at: ManifestLocation(file: reader.file, line: line, column: column))
        } catch {
            reader.diagnostics.error("cannot parse the manifest: \(error)", at: start)
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
            return ("cannot parse the manifest: \(error)", 1, 1)
        }
    }

    private static func fileError(_ url: URL, _ message: String) -> ManifestError {
        ManifestError(diagnostics: [ManifestDiagnostic(.error, at: ManifestLocation(file: url.path, line: 1, column: 1),
                                                       message)])
    }

    private static func reason(for error: any Error) -> String {
        let nsError = error as NSError
        if nsError.domain == NSCocoaErrorDomain, nsError.code == NSFileReadNoSuchFileError { return "no such file" }
        return nsError.localizedDescription
    }
}
