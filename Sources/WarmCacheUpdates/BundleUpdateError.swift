import Foundation

/// Why an update failed. Whatever the kind, the local bundle is exactly as it was before the
/// update started (readers keep the previous complete version), and running the update again
/// resumes: blobs already verified are not downloaded twice.
public struct BundleUpdateError: Error, CustomStringConvertible, Sendable, Equatable {
    public enum Kind: Sendable, Equatable {
        /// The base URL is not an absolute `https` URL (or `http` on loopback / when allowed).
        case insecureURL
        /// The server answered with an HTTP status other than the expected one.
        case httpStatus(Int)
        /// The server redirected to another scheme, host or port; the updater only follows
        /// redirects within the update source's origin.
        case redirectRefused(to: String)
        /// A response was larger than the configured limit or the size the index promised.
        case tooLarge(limit: Int)
        /// A response ended before its announced length.
        case truncated(expected: Int, received: Int)
        /// A blob's bytes do not hash to the name the index gives them.
        case hashMismatch(expected: String, actual: String)
        /// A blob's size is not the one the index gives it.
        case sizeMismatch(expected: Int, actual: Int)
        /// The downloaded index is not a usable WarmCache index (not SQLite, another application,
        /// damaged, or rows that break the untrusted-input rules).
        case invalidIndex
        /// The downloaded index uses a format major this library cannot read.
        case unsupportedVersion(found: Int, supported: Int)
        /// The server did not answer within the configured timeout.
        case timedOut
        /// The connection failed (refused, reset, DNS, TLS …).
        case network
        /// Another update of the same directory is running (in this or another process).
        case busy
        /// Reading or writing the local directory failed.
        case fileSystem
    }

    public let kind: Kind
    /// The remote file concerned (the index, a blob) or the local directory for `busy` / `fileSystem`.
    public let url: URL
    /// Details: the underlying error's message, the offending row, …
    public let detail: String

    public init(_ kind: Kind, url: URL, detail: String = "") {
        self.kind = kind
        self.url = url
        self.detail = detail
    }

    /// Whether trying again later may succeed without anyone fixing the server (network trouble,
    /// timeouts, a busy directory), as opposed to content the server must correct.
    public var isTransient: Bool {
        switch kind {
        case .timedOut, .network, .busy, .truncated: return true
        case .httpStatus(let status): return status >= 500 || status == 429 || status == 408
        default: return false
        }
    }

    public var description: String {
        let where_ = url.isFileURL ? url.path : url.absoluteString
        let summary: String
        switch kind {
        case .insecureURL:
            summary = "refusing to update from \(where_): use https (plain http is allowed only for loopback "
                + "addresses, or when the updater's configuration sets allowsInsecureHTTP)"
        case .httpStatus(let status):
            summary = "\(where_) answered HTTP \(status); check that the whole bundle directory (index.sqlite "
                + "and objects/) is published at the base URL"
        case .redirectRefused(let target):
            summary = "\(where_) redirected to \(target), another origin; the updater follows redirects only "
                + "within the base URL's scheme, host and port: point the base URL at the final location"
        case .tooLarge(let limit):
            summary = "\(where_) is larger than the limit of \(limit) bytes; raise the limit in the updater's "
                + "configuration if the bundle really is that large"
        case .truncated(let expected, let received):
            summary = "\(where_) ended after \(received) of \(expected) bytes; the transfer was cut, try again"
        case .hashMismatch(let expected, let actual):
            summary = "\(where_) has the wrong content (SHA-256 \(actual), the index says \(expected)); "
                + "republish the blob from the bundle the index came from"
        case .sizeMismatch(let expected, let actual):
            summary = "\(where_) is \(actual) bytes but the index says \(expected); republish the blob from the "
                + "bundle the index came from"
        case .invalidIndex:
            summary = "\(where_) is not a valid WarmCache index; publish the index.sqlite that `warm-cache warm` wrote"
        case .unsupportedVersion(let found, let supported):
            summary = "\(where_) uses bundle format \(found), but this app reads format \(supported) at most; "
                + "update the app (its WarmCache library) before publishing bundles of the newer format"
        case .timedOut:
            summary = "\(where_) did not answer in time; try again later or raise the updater's timeout"
        case .network:
            summary = "could not download \(where_); check the network and the base URL, then try again"
        case .busy:
            summary = "another update of \(where_) is running; wait for it to finish"
        case .fileSystem:
            summary = "could not write the update into \(where_)"
        }
        return (detail.isEmpty ? summary : "\(summary) (\(detail))") + "; the local bundle is unchanged"
    }
}
