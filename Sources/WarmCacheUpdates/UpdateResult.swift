import Foundation

/// What an update did.
public struct UpdateResult: Sendable, Hashable, Codable {
    public enum Outcome: String, Sendable, Hashable, Codable {
        /// The installed index is current: the server answered `304` to the one conditional
        /// request, or its statement names the installed index (a statement signed again, e.g. to
        /// extend its expiry, is installed without downloading anything else).
        case upToDate
        /// A new version was downloaded, verified and switched to.
        case updated
    }

    public var outcome: Outcome
    /// The local bundle directory: open it with `CacheBundle(contentsOf:)` (again, after an update).
    public var bundleURL: URL
    /// HTTP requests made, the conditional one included.
    public var requests: Int
    /// The installed release's signed version, when it expires and the id of the key that signed
    /// it; `nil` for an unsigned update (``BundleUpdater/Configuration/allowsUnsignedUpdates``).
    public var version: Int?
    public var expiresAt: Date?
    public var keyID: String?
    /// Bytes of the statement downloaded (0 when the server answered `304`).
    public var statementBytes: Int = 0
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

    /// Everything transferred: statement, index and blobs.
    public var bytesDownloaded: Int { statementBytes + indexBytes + blobBytesDownloaded }
}
