import Foundation

/// Everything wrong with a manifest, found in one pass before any work starts.
///
/// The loader does not stop at the first problem: a manifest with a misspelt preset, a bad
/// URL and a missing file reports all three. ``description`` prints one compiler-style line per
/// diagnostic, in file order, each error followed by its notes. Warnings are not included:
/// they come with the plan once the errors are fixed (``WarmPlan/warnings``).
public struct ManifestError: Error, Sendable, CustomStringConvertible, LocalizedError {
    /// The errors, sorted by file, line and column; each note follows the error it explains.
    public var diagnostics: [ManifestDiagnostic]

    public init(diagnostics: [ManifestDiagnostic]) {
        self.diagnostics = diagnostics
    }

    /// Only the errors, without warnings and notes.
    public var errors: [ManifestDiagnostic] {
        diagnostics.filter { $0.severity == .error }
    }

    public var description: String {
        diagnostics.map(\.description).joined(separator: "\n")
    }

    public var errorDescription: String? { description }
}
