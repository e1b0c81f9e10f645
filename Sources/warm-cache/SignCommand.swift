import ArgumentParser
import Foundation
import WarmCacheUpdates
import WarmCache

/// `warm-cache sign Images.warmcache --key keys/images.key`: (re)signs a bundle's index.
struct SignCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sign",
        abstract: "Sign a bundle for over-the-air updates: write its statement.json beside index.sqlite.",
        discussion: """
            The statement names the index (SHA-256 and size), a version that only grows, when it was signed \
            and when it expires. Apps refuse a lower version, another index under the same version, and an \
            expired statement: sign again before it expires (only index.sqlite and statement.json are needed, \
            not objects/) and publish statement.json after index.sqlite. `warm` and `merge` sign the bundle \
            they write when given a key (--sign-key, or WARM_CACHE_SIGNING_KEY).
            """)

    @Argument(help: "The bundle directory (…/Name.warmcache).", completion: .directory)
    var bundle: String

    @Option(help: ArgumentHelp("The secret key file from `keygen`.",
                               discussion: "Default: the key in WARM_CACHE_SIGNING_KEY.", valueName: "file"),
            completion: .file())
    var key: String?

    /// Once `--version`, now warm-cache's own (`warm-cache --version`): that spelling here is
    /// refused, naming this one (``RootOnlyOptions``).
    @Option(name: .customLong("sign-version"),
            help: ArgumentHelp("The version: higher than the bundle's current statement's (default: one more).",
                               valueName: "n"))
    var version: Int64?

    @Option(help: ArgumentHelp("How long the statement stays current (default 30d).",
                               valueName: "duration: 30d, 12h, 6mo, 1y"))
    var expires: String?

    @OptionGroup var logging: QuietOption

    var request: SigningRequest {
        SigningRequest(keyFile: key, version: version, expires: expires, keyOption: "--key",
                       versionOption: "--sign-version", expiresOption: "--expires")
    }

    func validate() throws {
        try request.validate()
    }

    func run() throws {
        let signingKey: BundleSigningKey?
        do {
            signingKey = try request.key()
        } catch {
            Console.error("\(PlainReason.of(error))")
            throw ExitCode.failure
        }
        guard let signingKey else {
            // One line, not the usage: the command line is right but for the key.
            Console.error("no signing key: give the secret key file with --key FILE (from `warm-cache keygen`), or "
                + "its contents in \(BundleSigningKey.environmentVariable)")
            throw ExitCode.validationFailure
        }
        try request.sign(URL(fileURLWithPath: bundle), key: signingKey, keepIfCurrent: false, quiet: logging.quiet)
    }
}
