import ArgumentParser
import Foundation
import WarmCache
import WarmCacheBuilder
import WarmCacheUpdates

/// Where the secret key comes from and what to sign, shared by `sign` (`--key`, `--version`,
/// `--expires`) and by `warm` and `merge` (``SigningOptions``: `--sign-key`, `--sign-version`,
/// `--sign-expires`), which sign the bundle they wrote.
struct SigningRequest {
    /// `--key FILE`; `nil`: the key in `WARM_CACHE_SIGNING_KEY`, if any.
    var keyFile: String?
    var version: Int64?
    var expires: String?
    /// The option names as this command spells them, for messages.
    var keyOption: String
    var versionOption: String
    var expiresOption: String

    /// Checks the values before any work, loading the key so that a bad one fails at once (like
    /// a manifest that cannot be read: one `error:` line, exit 1).
    func validate() throws {
        if let expires, ManifestDuration.seconds(from: expires).map({ $0 >= 1 }) != true {
            throw ValidationError("\(expiresOption) '\(expires)' is not a duration of at least a second: write a "
                + "number and a unit, \(ManifestDuration.unitNames), e.g. 30d, 6mo or 1y")
        }
        if let version, !(1...BundleStatement.maximumVersion).contains(version) {
            throw ValidationError("\(versionOption) must be a whole number from 1 to \(BundleStatement.maximumVersion)")
        }
        do {
            _ = try key(warning: { _ in })
        } catch {
            Console.error(error.description)
            throw ExitCode.failure
        }
    }

    /// Why the signing options were ignored, when they were given without a key (a CI run without
    /// its secrets, such as a pull request from a fork, still warms).
    var ignoredWithoutKey: String? {
        guard version != nil || expires != nil else { return nil }
        return "not signing: no key (\(keyOption) FILE or \(BundleSigningKey.environmentVariable)), so "
            + "\(version != nil ? versionOption : expiresOption) is ignored"
    }

    /// The key from the file, else from the environment; `nil` when neither is given.
    func key(warning: (String) -> Void = { Console.warning($0) }) throws(SigningError) -> BundleSigningKey? {
        if let keyFile {
            return try BundleSigningKey.load(file: URL(fileURLWithPath: keyFile), warning: warning)
        }
        return try BundleSigningKey.fromEnvironment()
    }

    /// Signs `bundle` with the key; prints one line unless `quiet`. Errors are printed and exit 1.
    /// - Parameter keepIfCurrent: keep a statement that already names the index (see ``BundleSigner``).
    func sign(_ bundle: URL, key: BundleSigningKey, keepIfCurrent: Bool, quiet: Bool) throws {
        let outcome: BundleSigner.Outcome
        do {
            outcome = try BundleSigner(bundleURL: bundle, key: key)
                .sign(version: version, validity: validity, keepIfCurrent: keepIfCurrent && version == nil && expires == nil)
        } catch {
            Console.error("\(PlainReason.of(error))")
            throw ExitCode.failure
        }
        if !quiet { announce(outcome, bundle: bundle, key: key) }
    }

    /// "Signed Images.warmcache: version 7, expires …, key …".
    func announce(_ outcome: BundleSigner.Outcome, bundle: URL, key: BundleSigningKey) {
        let statement = outcome.statement.statement
        Console.line("\(outcome.wrote ? "Signed" : "Kept the signature of") \(bundle.lastPathComponent): "
            + "version \(statement.version), expires \(BundleStatement.timestamp(statement.expiresAt)), "
            + "key \(key.keyID)" + (outcome.wrote ? "" : " (it already named this index)"))
    }

    /// The validity asked for, or the default.
    var validity: TimeInterval {
        expires.flatMap(ManifestDuration.seconds(from:)) ?? BundleSigner.defaultValidity
    }
}

/// `--sign-key`, `--sign-version`, `--sign-expires`: `warm` and `merge` sign the bundle they
/// wrote when a key is given here or in `WARM_CACHE_SIGNING_KEY`.
struct SigningOptions: ParsableArguments {
    @Option(name: .customLong("sign-key"),
            help: ArgumentHelp("Sign the written bundle with this secret key file (from `keygen`).",
                               discussion: "Default: the key in WARM_CACHE_SIGNING_KEY, when set.",
                               valueName: "file"),
            completion: .file())
    var keyFile: String?

    @Option(name: .customLong("sign-version"),
            help: ArgumentHelp("The signed version (default: one more than the bundle's current statement's).",
                               valueName: "n"))
    var version: Int64?

    @Option(name: .customLong("sign-expires"),
            help: ArgumentHelp("How long the signature stays current (default 30d).",
                               valueName: "duration: 30d, 12h, 6mo, 1y"))
    var expires: String?

    var request: SigningRequest {
        SigningRequest(keyFile: keyFile, version: version, expires: expires, keyOption: "--sign-key",
                       versionOption: "--sign-version", expiresOption: "--sign-expires")
    }

    func validate() throws {
        try request.validate()
    }

    /// Before a run that writes `bundle`: fails (exit 1, one line) when the signing that follows
    /// it could not succeed (a version not higher than the bundle's current one, or a current
    /// statement that cannot be read when the next version must follow it), so that nothing is
    /// published that cannot be signed. Nothing to check without a key, or for a partial bundle.
    func checkBeforeWriting(_ bundle: URL, partial: Bool) throws {
        guard !partial, let key = try? request.key(warning: { _ in }) else { return }
        do {
            try BundleSigner(bundleURL: bundle, key: key).checkVersion(version)
        } catch {
            Console.error("\(PlainReason.of(error)); nothing was done")
            throw ExitCode.failure
        }
    }

    /// The signer of a run that writes `bundle`, when a key is given and the bundle is whole: it
    /// signs each new index before it is published (``PublishingSigner``).
    func publishingSigner(for bundle: URL, partial: Bool) -> PublishingSigner? {
        guard !partial, let key = try? request.key(warning: { _ in }) else { return nil }
        return PublishingSigner(request: request, signer: BundleSigner(bundleURL: bundle, key: key))
    }

    /// After a run that wrote `bundle`: signs it when a key was given. Without one, warns when
    /// the bundle's statement no longer names its index (clients would refuse the bundle). A
    /// partial bundle (`--shard`) is never signed: the merged one is.
    func signWrittenBundle(_ bundle: URL, partial: Bool, quiet: Bool) throws {
        let key: BundleSigningKey?
        do {
            key = try request.key()
        } catch {
            Console.error("\(PlainReason.of(error))")
            throw ExitCode.failure
        }
        guard let key, !partial else {
            if partial, keyFile != nil {
                Console.warning("a partial bundle is not signed: sign the merged one (merge --sign-key)")
            }
            if !partial, key == nil, let ignored = request.ignoredWithoutKey {
                Console.warning(ignored)
            }
            if !partial, let stale = StatementCheck.staleStatement(in: bundle) {
                Console.warning(stale)
            }
            return
        }
        try request.sign(bundle, key: key, keepIfCurrent: true, quiet: quiet)
    }
}

/// Signs a bundle's next index before the writer publishes it, so that a signing that fails
/// publishes nothing: the previous index and statement stay. The statement waits beside
/// `statement.json` until the run has published its index, then ``finish(bundle:quiet:)`` puts it
/// in place (a rename).
final class PublishingSigner: Sendable {
    let request: SigningRequest
    let signer: BundleSigner
    private let prepared = Locked<BundleSigner.Prepared?>(nil)

    init(request: SigningRequest, signer: BundleSigner) {
        self.request = request
        self.signer = signer
    }

    /// The writer's hook: signs `index`, or throws why it cannot (nothing is then published).
    @Sendable func prepare(_ index: URL) throws {
        let next: BundleSigner.Prepared
        do {
            next = try signer.prepare(indexAt: index, version: request.version, validity: request.validity)
        } catch {
            throw SigningError("cannot sign the bundle: \(error.description); nothing was published, "
                + "\(signer.bundleURL.path) is unchanged")
        }
        prepared.withLock { $0?.discard(); $0 = next }
    }

    /// Whether a statement was prepared (the run published a new index).
    var hasPrepared: Bool { prepared.withLock { $0 != nil } }

    /// After a run that published: puts the prepared statement in place. One line unless `quiet`;
    /// a failure is one error line and exit 1.
    func finish(bundle: URL, quiet: Bool) throws {
        guard let statement = prepared.withLock({ $0 }) else { return }
        do {
            try statement.install()
        } catch {
            Console.error(error.description)
            throw ExitCode.failure
        }
        if !quiet { request.announce(statement.outcome, bundle: bundle, key: signer.key) }
    }

    /// After a run that published nothing: removes the statement prepared, if any.
    func discard() {
        prepared.withLock { $0?.discard(); $0 = nil }
    }
}
