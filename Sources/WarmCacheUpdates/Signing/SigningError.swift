import Foundation

/// Why a key could not be read or a bundle could not be signed. The message is one plain line:
/// what went wrong, where (a file, an option, an environment variable) and what to do. It never
/// contains key material: a secret key that was given in the wrong place is named, not quoted.
public struct SigningError: Error, CustomStringConvertible, Sendable, Equatable {
    /// What went wrong, where and what to do, in one line without key material.
    public let description: String

    package init(_ description: String) {
        self.description = description
    }
}
