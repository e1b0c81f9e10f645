import Foundation
import WarmCache

/// Writes a bundle's signed statement (`statement.json` beside `index.sqlite`): what `warm`,
/// `merge` and `sign` do once the index is in place.
package struct BundleSigner: Sendable {
    /// How long a statement stays current unless told otherwise: 30 days.
    package static let defaultValidity: TimeInterval = 30 * 86_400

    package let bundleURL: URL
    package let key: BundleSigningKey

    package init(bundleURL: URL, key: BundleSigningKey) {
        self.bundleURL = bundleURL.standardizedFileURL
        self.key = key
    }

    package var statementURL: URL { bundleURL.appendingPathComponent(BundleFormat.statementFileName) }
    var indexURL: URL { bundleURL.appendingPathComponent(BundleFormat.indexFileName) }

    /// What ``sign(version:validity:keepIfCurrent:now:)`` did.
    package struct Outcome: Sendable {
        package var statement: SignedStatement
        /// `false` when the existing statement was kept (``sign(version:validity:keepIfCurrent:now:)``'s `keepIfCurrent`).
        package var wrote: Bool
    }

    /// Signs the bundle's current index.
    ///
    /// - Parameters:
    ///   - version: the new version; it must be higher than the bundle's current statement's.
    ///     `nil`: one more than the current statement's (1 for the first).
    ///   - validity: seconds from now until the statement expires.
    ///   - keepIfCurrent: keep the current statement, writing nothing, when it already names this
    ///     index, is signed by this key and has at least half of `validity` left (a re-warm that
    ///     changed nothing then changes no file, and clients keep getting `304`).
    package func sign(version: Int64? = nil, validity: TimeInterval = defaultValidity, keepIfCurrent: Bool = false,
                      now: Date = Date()) throws(SigningError) -> Outcome {
        guard validity >= 1, validity <= 100 * 365 * 86_400 else {
            throw SigningError("a statement must stay valid between 1 second and 100 years; give e.g. --expires 30d")
        }
        let index = try currentIndex()
        let previous = try previousStatement(needed: version == nil)
        if keepIfCurrent, let previous, previous.statement.index == index, previous.keyIDs.contains(key.keyID),
           previous.statement.expiresAt.timeIntervalSince(now) >= validity / 2,
           (try? SignedStatement.verify(previous.data, trustedKeys: [key.publicKey])) != nil {
            return Outcome(statement: previous, wrote: false)
        }
        let newVersion = try nextVersion(version, after: previous)
        let statement = BundleStatement(index: index, version: newVersion, signedAt: now,
                                        expiresAt: now.addingTimeInterval(validity))
        let data = try statement.signed(by: key)
        try write(data)
        return Outcome(statement: SignedStatement(statement: statement, keyIDs: [key.keyID], verifiedBy: key.keyID,
                                                  data: data), wrote: true)
    }

    /// Checks, before any work, that signing the bundle with `version` (`nil`: the next one) can
    /// succeed as far as versions go: what ``sign(version:validity:keepIfCurrent:now:)`` would
    /// refuse once the bundle is rebuilt and published, refused before it is.
    package func checkVersion(_ version: Int64?) throws(SigningError) {
        _ = try nextVersion(version, after: try previousStatement(needed: version == nil))
    }

    /// `version`, or one more than `previous`'s, once checked: in range and higher than `previous`'s.
    private func nextVersion(_ version: Int64?, after previous: SignedStatement?) throws(SigningError) -> Int64 {
        let newVersion = version ?? (previous?.statement.version ?? 0) + 1
        guard (1...BundleStatement.maximumVersion).contains(newVersion) else {
            throw SigningError("version \(newVersion) is out of range: give a whole number from 1 to "
                + "\(BundleStatement.maximumVersion), e.g. the CI's run number or the time in seconds")
        }
        if let previous, newVersion <= previous.statement.version {
            throw SigningError("version \(newVersion) is not higher than version \(previous.statement.version) of "
                + "\(statementURL.path); versions only grow (apps refuse a lower one as a rollback): give a higher "
                + "version, or leave it out to use \(previous.statement.version + 1)")
        }
        return newVersion
    }

    /// The digest of `index.sqlite`, after checking it is a WarmCache index this library reads.
    private func currentIndex() throws(SigningError) -> IndexDigest {
        guard FileManager.default.fileExists(atPath: indexURL.path) else {
            throw SigningError("\(bundleURL.path) has no index.sqlite; sign a bundle directory that "
                + "`warm-cache warm` or `merge` wrote")
        }
        do {
            _ = try CacheBundle(contentsOf: bundleURL, configuration: CacheBundle.Configuration(maximumConnections: 1))
        } catch {
            throw SigningError("\(indexURL.path) is not a WarmCache index this version reads (\(PlainReason.of(error))); "
                + "sign a bundle directory that `warm-cache warm` or `merge` wrote")
        }
        do {
            return try IndexDigest(contentsOf: indexURL)
        } catch {
            throw SigningError("cannot read \(indexURL.path): \(PlainReason.of(error))")
        }
    }

    /// The bundle's current statement, whoever signed it (only its version and index are used).
    /// A statement that cannot be read is an error when the new version is derived from it.
    private func previousStatement(needed: Bool) throws(SigningError) -> SignedStatement? {
        guard let data = FileManager.default.contents(atPath: statementURL.path) else { return nil }
        do {
            return try SignedStatement.readUnverified(data)
        } catch {
            guard needed else { return nil }
            throw SigningError("\(statementURL.path) is \(PlainReason.of(error)), so the next version is unknown; give the "
                + "version (higher than the last one published) with --version")
        }
    }

    /// A statement signed for an index not yet in place, written beside `statement.json`:
    /// ``install()`` puts it in place (a rename) once the index is; ``discard()`` removes it.
    package struct Prepared: Sendable {
        package var outcome: Outcome
        let temporary: URL
        let destination: URL

        package func install() throws(SigningError) {
            try BundleSigner.install(temporary, at: destination)
        }

        package func discard() {
            try? FileManager.default.removeItem(at: temporary)
        }
    }

    /// Signs the index at `index` (the bundle's next one, before it replaces `index.sqlite`) with
    /// the version that follows the bundle's current statement, or `version`; the statement waits,
    /// flushed, beside `statement.json` until ``Prepared/install()``.
    package func prepare(indexAt index: URL, version: Int64?, validity: TimeInterval = defaultValidity,
                         now: Date = Date()) throws(SigningError) -> Prepared {
        let digest: IndexDigest
        do {
            digest = try IndexDigest(contentsOf: index)
        } catch {
            throw SigningError("cannot read \(index.path): \(PlainReason.of(error))")
        }
        let newVersion = try nextVersion(version, after: try previousStatement(needed: version == nil))
        let statement = BundleStatement(index: digest, version: newVersion, signedAt: now, expiresAt: now.addingTimeInterval(validity))
        let data = try statement.signed(by: key)
        let outcome = Outcome(statement: SignedStatement(statement: statement, keyIDs: [key.keyID], verifiedBy: key.keyID,
                                                         data: data), wrote: true)
        return Prepared(outcome: outcome, temporary: try writeTemporary(data), destination: statementURL)
    }

    /// Writes `data` to `statement.json` atomically: a flushed temporary file renamed over it.
    private func write(_ data: Data) throws(SigningError) {
        try Self.install(try writeTemporary(data), at: statementURL)
    }

    /// Renames the flushed `temporary` over `destination` (removing it if that fails).
    static func install(_ temporary: URL, at destination: URL) throws(SigningError) {
        guard rename(temporary.path, destination.path) == 0 else {
            let reason = String(cString: strerror(errno))
            try? FileManager.default.removeItem(at: temporary)
            throw SigningError("cannot write \(destination.path): \(reason)")
        }
    }

    /// `data` in a flushed temporary file beside `statement.json`.
    private func writeTemporary(_ data: Data) throws(SigningError) -> URL {
        let temporary = bundleURL.appendingPathComponent(".\(BundleFormat.statementFileName).\(UUID().uuidString).tmp")
        do {
            try data.write(to: temporary)
            let handle = try FileHandle(forUpdating: temporary)
            defer { try? handle.close() }
            guard LibC.flushToStorage(handle.fileDescriptor) else {
                throw SigningError("flushing: \(String(cString: strerror(errno)))")
            }
            return temporary
        } catch {
            try? FileManager.default.removeItem(at: temporary)
            throw SigningError("cannot write \(statementURL.path): \(PlainReason.of(error))")
        }
    }
}
