import Foundation

/// Everything wrong with a manifest, found in one pass before any work starts.
///
/// The loader does not stop at the first problem: a manifest with a misspelt preset, a bad
/// URL and a missing file reports all three. ``description`` prints one compiler-style line per
/// diagnostic (errors, then the notes that belong to them), in file order.
public struct ManifestError: Error, Sendable, CustomStringConvertible, LocalizedError {
    /// The problems, sorted by file, line and column; each note follows the diagnostic it explains.
    /// Contains at least one ``ManifestDiagnostic/Severity/error``.
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
