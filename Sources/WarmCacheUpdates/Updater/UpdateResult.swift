import Foundation

/// What an update did.
public struct UpdateResult: Sendable, Hashable, Codable {
    /// Whether the update installed a new version.
    public enum Outcome: String, Sendable, Hashable, Codable {
        /// The installed index is current: the server answered `304` to the one conditional
        /// request, or its statement names the installed index (a statement signed again, e.g. to
        /// extend its expiry, is installed without downloading anything else).
        case upToDate
        /// A new version was downloaded, verified and switched to.
        case updated
    }

    /// Whether a new version was installed: reopen the bundle (or the `LayeredCacheBundle`) after
    /// ``Outcome/updated``.
    public var outcome: Outcome
    /// The local bundle directory: open it with `CacheBundle(contentsOf:)` (again, after an update).
    public var bundleURL: URL
    /// HTTP requests made, the conditional one included.
    public var requests: Int
    /// The installed release's signed version; `nil` for an unsigned update
    /// (``BundleUpdater/Configuration/allowsUnsignedUpdates``), as are ``expiresAt`` and ``keyID``.
    public var version: Int64?
    /// When the installed statement expires; sign and publish again before then.
    public var expiresAt: Date?
    /// The ``BundlePublicKey/keyID`` of the key that signed the installed release.
    public var keyID: String?
    /// Bytes of the statement downloaded (0 when the server answered `304`).
    public var statementBytes: Int64 = 0
    /// Bytes of the index downloaded (0 when up to date).
    public var indexBytes: Int64
    /// Blobs downloaded and verified.
    public var blobsDownloaded: Int
    /// Bytes of the blobs in ``blobsDownloaded``.
    public var blobBytesDownloaded: Int64
    /// Blobs the new index needs that were already on disk (from earlier versions or an
    /// interrupted update), or copied from a seed bundle, so not downloaded.
    public var blobsReused: Int
    /// Blobs the new index references in total.
    public var blobsReferenced: Int
    /// Bytes of the blobs in ``blobsReferenced``.
    public var blobBytesReferenced: Int64
    /// Superseded blobs deleted after the switch.
    public var blobsRemoved: Int

    /// Everything transferred: statement, index and blobs.
    public var bytesDownloaded: Int64 { statementBytes + indexBytes + blobBytesDownloaded }
}
