import Foundation

/// What an update did.
public struct UpdateResult: Sendable, Hashable, Codable {
    public enum Outcome: String, Sendable, Hashable, Codable {
        /// The server confirmed the installed index is current (one conditional request).
        case upToDate
        /// A new version was downloaded, verified and switched to.
        case updated
    }

    public var outcome: Outcome
    /// The local bundle directory: open it with `CacheBundle(contentsOf:)` (again, after an update).
    public var bundleURL: URL
    /// HTTP requests made, the conditional one included.
    public var requests: Int
    /// Bytes of the index downloaded (0 when up to date).
    public var indexBytes: Int
    /// Blobs downloaded and verified, and their bytes.
    public var blobsDownloaded: Int
    public var blobBytesDownloaded: Int
    /// Blobs the new index needs that were already on disk (from earlier versions or an
    /// interrupted update), or copied from a seed bundle, so not downloaded.
    public var blobsReused: Int
    /// Blobs the new index references in total, and their bytes.
    public var blobsReferenced: Int
    public var blobBytesReferenced: Int
    /// Superseded blobs deleted after the switch.
    public var blobsRemoved: Int

    /// Everything transferred: index plus blobs.
    public var bytesDownloaded: Int { indexBytes + blobBytesDownloaded }
}
