import WarmCacheBuilder

/// The object every command given `--json` prints when it fails (docs/json.md, "error"): one
/// line in `error`, and for an invalid manifest each of its problems apart, so that a script or
/// an editor can point at them without parsing the line.
///
/// ```json
/// { "error": "/app/warm-cache.yml: 2 problems; nothing was done",
///   "problems": [ { "file": "/app/warm-cache.yml", "line": 4, "column": 7,
///                   "message": "unknown key 'presetz' in an image entry (did you mean 'presets'?)" } ] }
/// ```
struct ErrorJSON: Encodable {
    var error: String
    var problems: [Problem]?

    /// One manifest error, where it is and what is wrong, with the notes that explain it.
    struct Problem: Encodable {
        var file: String
        var line: Int
        var column: Int
        var message: String
        var notes: [Note]?

        /// A note's place and words (e.g. where a duplicate was first listed).
        struct Note: Encodable {
            var file: String
            var line: Int
            var column: Int
            var message: String
        }

        /// The errors of `error`, in file order, each with the notes that follow it.
        static func list(_ error: ManifestError) -> [Problem] {
            var problems: [Problem] = []
            for diagnostic in error.diagnostics {
                switch diagnostic.severity {
                case .error:
                    problems.append(Problem(file: diagnostic.file, line: diagnostic.line, column: diagnostic.column,
                                            message: diagnostic.message))
                case .note where !problems.isEmpty:
                    let note = Note(file: diagnostic.file, line: diagnostic.line, column: diagnostic.column,
                                    message: diagnostic.message)
                    problems[problems.count - 1].notes = (problems[problems.count - 1].notes ?? []) + [note]
                case .note, .warning:
                    break
                }
            }
            return problems
        }
    }
}
