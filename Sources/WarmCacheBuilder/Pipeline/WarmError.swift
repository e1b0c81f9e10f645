import Foundation

/// Why a warm run as a whole failed. Individual source failures are in the ``WarmReport``.
public struct WarmError: Error, Sendable, CustomStringConvertible, LocalizedError {
    public enum Kind: Sendable, Equatable {
        /// Every source failed, so there was nothing to publish; the previous bundle is untouched.
        case nothingWritten
        /// `--strict` and at least one source failed; the previous bundle is untouched.
        case strictFailure
        /// Another run holds the output's lock.
        case locked
        /// The imaging engine could not start (libvips missing or broken).
        case engine
        /// Reading or writing the cache or the bundle failed.
        case fileSystem
        /// The bundle would weigh more than the manifest's `budget`; the previous bundle is untouched.
        case overBudget
        /// A disk (the bundle's or the cache's) ran out of space or inodes: the run stopped, removed
        /// what it wrote, and the previous bundle is untouched.
        case outOfSpace
        /// The run was cancelled (Ctrl-C, SIGTERM): it stopped, removed what it wrote, and the
        /// previous bundle is untouched; originals downloaded in full are kept.
        case interrupted
        /// The bundle was published (``report`` says with which outcome) but the report could not
        /// be written; the message says why.
        case reportNotWritten
    }

    public var kind: Kind
    public var message: String
    /// The report of the run up to the failure, when there was one.
    public var report: WarmReport?
    /// Why the report (`--report`) could not be written, when it could not: said after the run's
    /// own failure, never instead of it.
    public var reportProblem: String?

    public init(_ kind: Kind, _ message: String, report: WarmReport? = nil) {
        self.kind = kind
        self.message = message
        self.report = report
    }

    public var description: String { message }
    public var errorDescription: String? { message }
}
