/// A string that must never be printed: header values such as `Authorization: Bearer …`.
///
/// Every textual path (`description`, `debugDescription`, string interpolation, `dump`,
/// `Mirror`, `Encodable`) shows `<redacted>`. Only code that needs the value, the HTTP
/// fetcher setting a header, reads ``unredactedValue``, by that deliberately loud name.
public struct SecretString: Hashable, Sendable, CustomStringConvertible, CustomDebugStringConvertible,
                            CustomReflectable, Encodable {
    /// What every printed form shows instead of the value.
    public static let redacted = "<redacted>"

    /// The real value. Use it only to send it where it belongs; never log it.
    public let unredactedValue: String

    public init(_ value: String) {
        unredactedValue = value
    }

    public var description: String { Self.redacted }
    public var debugDescription: String { "SecretString(\(Self.redacted))" }
    public var customMirror: Mirror { Mirror(self, children: [], displayStyle: .struct) }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(Self.redacted)
    }
}
