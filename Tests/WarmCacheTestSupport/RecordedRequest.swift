import Foundation

/// A request as the fixture server received it, for assertions ("was `If-None-Match`
/// sent?", "did the token reach the server?", "were connections reused?").
public struct RecordedRequest: Sendable {
    public var method: String
    /// The path without the query string (what routes are matched on).
    public var path: String
    /// The request target as sent, query included.
    public var uri: String
    public var headers: [(name: String, value: String)]
    /// Which accepted connection carried it (1 for the first connection, and so on).
    public var connection: Int
    /// When the request head arrived.
    public var receivedAt: Date

    /// The first value of the header called `name` (case-insensitive), if present.
    public func header(_ name: String) -> String? {
        headers.first { $0.name.caseInsensitiveCompare(name) == .orderedSame }?.value
    }
}
