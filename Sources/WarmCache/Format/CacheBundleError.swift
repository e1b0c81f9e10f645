import Foundation

/// Why a bundle could not be opened or read. One error type with the bundle's location and
/// what went wrong, so a message alone tells the user what to fix.
public struct CacheBundleError: Error, CustomStringConvertible, Sendable, Equatable {
    /// What went wrong, for code that reacts differently to each case; the error's ``description``
    /// says it in words.
    public enum Kind: Sendable, Equatable {
        /// Nothing exists at the bundle URL.
        case bundleNotFound
        /// Something exists but is not a WarmCache bundle (no index, or an index of another application).
        case notABundle
        /// The index exists but SQLite cannot read it, or it lacks the tables the format requires.
        case corruptIndex
        /// The bundle was written by a newer WarmCache with a format major this reader does not know.
        case unsupportedVersion(found: Int, supported: Int)
        /// The index lists a blob that is not on disk (or cannot be read).
        case blobMissing(path: String)
    }

    /// What went wrong.
    public let kind: Kind
    /// The bundle directory.
    public let bundleURL: URL
    /// Details: SQLite's message, the missing file, …
    public let detail: String

    /// Creates an error; the library throws these, apps only read them.
    package init(_ kind: Kind, bundleURL: URL, detail: String = "") {
        self.kind = kind
        self.bundleURL = bundleURL
        self.detail = detail
    }

    /// One line for a log or an alert: what is wrong, with which bundle, and the detail, e.g.
    /// "no WarmCache bundle at /…/Images.warmcache".
    public var description: String {
        let path = bundleURL.path
        let summary: String
        switch kind {
        case .bundleNotFound:
            summary = "no WarmCache bundle at \(path)"
        case .notABundle:
            summary = "\(path) is not a WarmCache bundle"
        case .corruptIndex:
            summary = "the index of the WarmCache bundle at \(path) is corrupt or incomplete"
        case .unsupportedVersion(let found, let supported):
            summary = "the WarmCache bundle at \(path) uses format version \(found), but this reader "
                + "supports version \(supported) at most; update WarmCache or re-bake the bundle with this version"
        case .blobMissing(let blob):
            summary = "the WarmCache bundle at \(path) lists \(blob), but that file is missing"
        }
        return detail.isEmpty ? summary : "\(summary) (\(detail))"
    }
}
