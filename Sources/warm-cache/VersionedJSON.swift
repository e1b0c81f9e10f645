import Foundation

/// The version of each `--json` output's shape, written under the key ``key`` (docs/json.md).
///
/// Every JSON output uses the warm report's key, `reportVersion`, so a script finds the version
/// of any output under one name. Each output counts on its own: a new key keeps its number; a
/// renamed or removed key, or a changed meaning, raises it.
enum JSONVersion {
    static let key = "reportVersion"

    static let inspect = 2
    static let inspectList = 1
    static let verify = 1
    static let lookup = 1
    static let plan = 2
    static let planShards = 1
    static let pull = 1
}

/// A JSON object with `reportVersion` added beside the value's own keys.
struct VersionedJSON<Value: Encodable>: Encodable {
    var version: Int
    var value: Value

    init(_ value: Value, version: Int) {
        self.value = value
        self.version = version
    }

    private struct Key: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    func encode(to encoder: Encoder) throws {
        try value.encode(to: encoder)
        var container = encoder.container(keyedBy: Key.self)
        try container.encode(version, forKey: Key(stringValue: JSONVersion.key))
    }
}
