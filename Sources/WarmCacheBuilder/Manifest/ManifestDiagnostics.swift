/// Collects diagnostics while a manifest is read and expanded.
///
/// Parsing and plan building report into one collector and keep going, so the user sees every
/// problem at once. Identical diagnostics are kept once: a broken preset used by three hundred
/// images is reported once, at the preset.
final class ManifestDiagnostics {
    /// A diagnostic and the notes that explain it; notes stay attached when sorting.
    private struct Group: Hashable {
        var primary: ManifestDiagnostic
        var notes: [ManifestDiagnostic]
    }

    private var groups: [Group] = []
    private var seen: Set<Group> = []

    var hasErrors: Bool {
        groups.contains { $0.primary.severity == .error }
    }

    func error(_ message: String, at location: ManifestLocation, notes: [(String, ManifestLocation)] = []) {
        add(.error, message, at: location, notes: notes)
    }

    func warning(_ message: String, at location: ManifestLocation, notes: [(String, ManifestLocation)] = []) {
        add(.warning, message, at: location, notes: notes)
    }

    private func add(_ severity: ManifestDiagnostic.Severity, _ message: String, at location: ManifestLocation,
                     notes: [(String, ManifestLocation)]) {
        let group = Group(primary: ManifestDiagnostic(severity, at: location, message),
                          notes: notes.map { ManifestDiagnostic(.note, at: $0.1, $0.0) })
        if seen.insert(group).inserted {
            groups.append(group)
        }
    }

    /// All diagnostics in file order (stable for equal locations), each followed by its notes.
    var sorted: [ManifestDiagnostic] {
        let ordered = groups.enumerated().sorted { lhs, rhs in
            if lhs.element.primary.location != rhs.element.primary.location {
                return lhs.element.primary.location < rhs.element.primary.location
            }
            return lhs.offset < rhs.offset
        }
        return ordered.flatMap { [$0.element.primary] + $0.element.notes }
    }

    /// The diagnostics of one severity, each followed by its notes, in file order. A failed
    /// load reports its errors only (warnings often follow from an error, such as a preset
    /// "not used" because its one reference is misspelt); a successful one hands back its warnings.
    func sorted(_ severity: ManifestDiagnostic.Severity) -> [ManifestDiagnostic] {
        var result: [ManifestDiagnostic] = []
        var keep = false
        for diagnostic in sorted {
            if diagnostic.severity != .note { keep = diagnostic.severity == severity }
            if keep { result.append(diagnostic) }
        }
        return result
    }
}
