/// One problem found in a manifest, printed the way compilers print theirs:
///
///     /path/manifest.yml:12:7: error: unknown preset 'thum' (did you mean 'thumb'?)
///
/// Editors and CI log viewers turn such lines into links. Messages never contain the value of
/// a header or of an environment variable: only names.
public struct ManifestDiagnostic: Hashable, Sendable, Encodable, CustomStringConvertible {
    public enum Severity: String, Hashable, Sendable, Encodable {
        /// The manifest cannot be used until this is fixed.
        case error
        /// The manifest works, but probably not as its author meant.
        case warning
        /// Extra context for the diagnostic just before it (for example where a duplicate was first listed).
        case note
    }

    public var severity: Severity
    public var location: ManifestLocation
    public var message: String

    public init(_ severity: Severity, at location: ManifestLocation, _ message: String) {
        self.severity = severity
        self.location = location
        self.message = message
    }

    public var file: String { location.file }
    public var line: Int { location.line }
    public var column: Int { location.column }

    public var description: String {
        "\(location): \(severity.rawValue): \(message)"
    }
}
