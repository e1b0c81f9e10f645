/// A place in a manifest (or in a file it refers to, such as a `urls_from` list).
///
/// Lines and columns are 1-based, and columns count Unicode scalars, as libyaml does, so a
/// location printed as `manifest.yml:12:7` is where an editor's cursor lands.
public struct ManifestLocation: Hashable, Sendable, Comparable, Encodable, CustomStringConvertible {
    /// The file's path as given to the loader (the manifest's path, or a referenced file's).
    public var file: String
    public var line: Int
    public var column: Int

    public init(file: String, line: Int, column: Int) {
        self.file = file
        self.line = line
        self.column = column
    }

    /// `file:line:column`, the form compilers and editors understand.
    public var description: String { "\(file):\(line):\(column)" }

    public static func < (lhs: ManifestLocation, rhs: ManifestLocation) -> Bool {
        (lhs.file, lhs.line, lhs.column) < (rhs.file, rhs.line, rhs.column)
    }
}

/// A value read from a manifest together with where it was written, so checks that run long
/// after parsing (preset expansion, duplicate detection) can still point at the right place.
struct Located<Value> {
    var value: Value
    var location: ManifestLocation

    init(_ value: Value, at location: ManifestLocation) {
        self.value = value
        self.location = location
    }

    func map<Other>(_ transform: (Value) -> Other) -> Located<Other> {
        Located<Other>(transform(value), at: location)
    }
}

extension Located: Sendable where Value: Sendable {}
extension Located: Equatable where Value: Equatable {}
extension Located: Hashable where Value: Hashable {}
