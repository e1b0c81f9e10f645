/// Why `warm-cache merge` wrote nothing. The output, if it held a bundle, is unchanged.
public struct BundleMergeError: Error, CustomStringConvertible, Sendable {
    public enum Kind: Sendable, Equatable {
        /// A part is missing, not a bundle, or its index cannot be read.
        case unreadablePart
        /// The parts do not belong together: different manifests, format versions or tool versions,
        /// a key with two different images, a shard given twice or missing.
        case incompatibleParts
        /// Another run holds the output's lock.
        case locked
        /// Writing the output failed (permissions, disk full, ...).
        case fileSystem
        /// ``BundleMerger/isCancelled`` said to stop (Ctrl-C): what the merge wrote was removed.
        case interrupted
    }

    public let kind: Kind
    public let message: String

    public init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    public var description: String { message }
}
