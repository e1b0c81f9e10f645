/// What one prefetch did with the images it was asked for.
public struct PrefetchSummary: Sendable, Hashable, CustomStringConvertible {
    /// Images read from disk into the memory tier.
    public var loaded = 0
    /// Images that were in memory already.
    public var alreadyInMemory = 0
    /// Requests for an image this prefetch or a concurrent one was already loading (not read twice).
    public var coalesced = 0
    /// Sources the bundle has no image for (at that size and format).
    public var notFound = 0
    /// Images whose blob could not be read (see the reader's error for a direct lookup).
    public var failed = 0
    /// Whether the task was cancelled before it went through every request.
    public var cancelled = false

    /// A summary with every count at zero.
    public init() {}

    /// The counts in one line, for logs: "12 loaded, 3 already in memory, 0 coalesced, …".
    public var description: String {
        "\(loaded) loaded, \(alreadyInMemory) already in memory, \(coalesced) coalesced, \(notFound) not found, "
            + "\(failed) failed\(cancelled ? ", cancelled" : "")"
    }
}
