import Foundation
import WarmCache

/// Why an update failed or was refused. Whatever the kind, the local bundle is exactly as it was
/// before the update started (readers keep the previous complete version) and nothing new is in
/// its folder. After a transient failure (``isTransient``) running the update again resumes:
/// blobs already verified are not downloaded twice.
///
/// The kinds from ``Kind/unsigned`` to ``Kind/expired(at:)`` are the signed-update checks
/// (docs/bundle-format.md, "Security model"): each names what the update source tried.
public struct BundleUpdateError: Error, CustomStringConvertible, Sendable, Equatable {
    /// What went wrong. Switch on it to react (tell the user about ``expired(at:)``, retry later after
    /// a transient kind, report a refused check to your telemetry); the error's ``description`` says
    /// it in words.
    public enum Kind: Sendable, Equatable {
        /// The base URL is not an absolute `https` URL (or `http` on loopback / when allowed).
        case insecureURL
        /// The configuration trusts no public key and does not allow unsigned updates.
        case noTrustedKeys
        /// The update source publishes an unsigned bundle: its `index.sqlite` is there but its
        /// `statement.json` answered 404 or 410.
        case unsigned
        /// Nothing is published at the base URL: `statement.json` and `index.sqlite` both answered
        /// 404 or 410 (a mistyped base URL, or a bundle not uploaded yet). Not a refusal.
        case notFound(status: Int)
        /// The statement is not a statement this library reads (not the envelope's JSON, a
        /// missing or out-of-range field, a newer format).
        case invalidStatement
        /// No signature by a trusted key: signed by the key ids given (or by none).
        case untrustedKey(keyIDs: [String])
        /// A signature naming a trusted key does not verify: the statement was altered.
        case badSignature(keyID: String)
        /// The index is not the one the statement names (another hash or size): an index from
        /// another release, or one altered on the way.
        case indexMismatch(expected: String, actual: String)
        /// The statement's version is lower than the one installed or shipped in the app.
        case rollback(offered: Int64, installed: Int64)
        /// The statement has the installed (or shipped) version but names another index.
        case versionReused(version: Int64)
        /// The statement expired: the source keeps serving an old one (a freeze) or the publisher
        /// did not sign again in time. The app keeps what it has.
        case expired(at: Date)
        /// A file did not arrive within its time limit although data kept coming (a slow
        /// retrieval): the statement within the configuration's `timeout`, anything else within
        /// `maximumUpdateDuration` of the update's start.
        case tooSlow(seconds: Int)
        /// The server answered with an HTTP status other than the expected one.
        case httpStatus(Int)
        /// The server redirected to another scheme, host or port; the updater only follows
        /// redirects within the update source's origin.
        case redirectRefused(to: String)
        /// A response was larger than the configured limit or the size the index promised.
        case tooLarge(limit: Int64)
        /// A response ended before its announced length.
        case truncated(expected: Int64, received: Int64)
        /// A blob's bytes do not hash to the name the index gives them.
        case hashMismatch(expected: String, actual: String)
        /// A blob's size is not the one the index gives it.
        case sizeMismatch(expected: Int64, actual: Int64)
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
        /// The disk holding the local directory ran out of space or inodes; `needed` is roughly
        /// what the update needs there in all (index and missing blobs), when known. What the
        /// update wrote is removed.
        case outOfSpace(needed: Int64?)
        /// The local directory holds other files and no bundle: the updater never writes beside
        /// them (nor would a clean-up of a failed update touch them).
        case notABundle
    }

    /// What went wrong.
    public let kind: Kind
    /// The remote file concerned (the index, a blob) or the local directory for `busy` / `fileSystem`.
    public let url: URL
    /// Details: the underlying error's message, the offending row, …
    public let detail: String

    /// Creates an error; the updater throws these, apps only read them.
    package init(_ kind: Kind, url: URL, detail: String = "") {
        self.kind = kind
        self.url = url
        self.detail = detail
    }

    /// Whether trying again later may succeed without anyone fixing the server (network trouble,
    /// timeouts, a busy directory), as opposed to content the server must correct.
    public var isTransient: Bool {
        switch kind {
        case .timedOut, .network, .busy, .truncated, .tooSlow: return true
        case .httpStatus(let status): return status >= 500 || status == 429 || status == 408
        default: return false
        }
    }

    /// One line for a log: the check or the failure, the file concerned, what to do about it, and
    /// that the local bundle is unchanged.
    public var description: String {
        let where_ = url.isFileURL ? url.path : url.absoluteString
        let summary: String
        switch kind {
        case .insecureURL:
            summary = "refusing to update from \(where_): use https (plain http is allowed only for loopback "
                + "addresses, or when the updater's configuration sets allowsInsecureHTTP)"
        case .noTrustedKeys:
            summary = "refusing to update from \(where_) without a trusted key: put the public key that "
                + "`warm-cache keygen` printed in the configuration's trustedKeys (or set allowsUnsignedUpdates "
                + "to accept bundles anyone who can write to the server could change)"
        case .unsigned:
            summary = "signature check: the bundle has an index but no \(where_), so it is unsigned and refused; "
                + "sign it when publishing (warm or merge with a signing key, or `warm-cache sign`) and upload "
                + "statement.json after index.sqlite"
        case .notFound(let status):
            summary = "not found at \(where_) (HTTP \(status)), nor the bundle's index.sqlite beside it: check the base "
                + "URL (the published bundle directory, e.g. https://cdn.example.com/Images.warmcache/) and that the "
                + "bundle was uploaded"
        case .invalidStatement:
            summary = "statement check: \(where_) is not a signed statement this app reads; publish the "
                + "statement.json that warm-cache wrote, unchanged"
        case .untrustedKey(let keyIDs):
            summary = "signature check: \(where_) is signed by "
                + (keyIDs.isEmpty ? "no key" : "key " + keyIDs.joined(separator: ", "))
                + ", which the app does not trust; sign with one of the app's trusted keys, or ship the new public "
                + "key in the app first"
        case .badSignature(let keyID):
            summary = "signature check: the signature by key \(keyID) does not match \(where_) (it was altered "
                + "after signing); publish the statement exactly as warm-cache wrote it"
        case .indexMismatch(let expected, let actual):
            summary = "index check: \(where_) is not the index the signed statement names (\(actual); the statement "
                + "says \(expected)); publish the index and the statement of one release, index.sqlite first"
        case .rollback(let offered, let installed):
            summary = "rollback check: \(where_) offers version \(offered), older than version \(installed) "
                + "installed or shipped in the app; publish a newer release (versions only grow)"
        case .versionReused(let version):
            summary = "version check: \(where_) offers version \(version) again with a different index; "
                + "sign every release with a higher version"
        case .expired(let date):
            summary = "expiry check: \(where_) expired at \(BundleStatement.timestamp(date)) (a stale statement "
                + "is being served, or it was not signed again in time); the app keeps its current images: "
                + "sign the bundle again (`warm-cache sign`) and publish its statement.json"
        case .tooSlow(let seconds):
            summary = "\(where_) did not arrive within \(seconds) s although data kept coming (a slow or stalling "
                + "server); try again later, or raise the updater's limit if the bundle is that large"
        case .httpStatus(let status):
            summary = "\(where_) answered HTTP \(status); check that the whole bundle directory (index.sqlite "
                + "and objects/) is published at the base URL"
        case .redirectRefused(let target):
            summary = "\(where_) redirected to \(target), another origin; the updater follows redirects only "
                + "within the base URL's scheme, host and port: point the base URL at the final location"
        case .tooLarge(let limit):
            summary = "\(where_) is larger than the limit of \(ByteCountText.format(limit)); raise the limit in the updater's "
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
        case .outOfSpace(let needed):
            summary = "out of disk space: " + DiskSpace.shortage(at: where_, needed: needed)
                + "; free some space there, then pull again"
        case .notABundle:
            summary = "refusing to update \(where_): it exists and is not a WarmCache bundle; give pull a new or "
                + "empty folder, or the bundle it keeps"
        }
        return (detail.isEmpty ? summary : "\(summary) (\(detail))") + "; the local bundle is unchanged"
    }
}
