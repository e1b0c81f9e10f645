import ArgumentParser
import Foundation
import WarmCacheUpdates
import WarmCache

/// `warm-cache keygen keys/images.key`: a new signing key for over-the-air updates.
struct KeygenCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "keygen",
        abstract: "Create a secret Ed25519 key that signs bundles for over-the-air updates; print its public key.",
        discussion: """
            FILE is created with mode 0600 and never overwritten. Standard output gets one line, the public \
            key (base64), for the app's BundleUpdater.Configuration(trustedKeys:) and `pull --public-key`; \
            its key id and what to do next go to standard error. Keep FILE secret: in CI, store its contents \
            as a secret and give it to warm, merge or sign in the WARM_CACHE_SIGNING_KEY environment variable.
            """)

    @Argument(help: "The secret key file to create.", completion: .file())
    var file: String

    func run() throws {
        let key = BundleSigningKey.generate()
        do {
            try key.write(toNewFile: URL(fileURLWithPath: file))
        } catch {
            Console.error("\(PlainReason.of(error))")
            throw ExitCode.failure
        }
        Console.line(key.publicKey.base64)
        FileHandle.standardError.write(Data("""
            key id \(key.keyID), written to \(file) (mode 0600). Keep that file secret and backed up; \
            sign with `warm-cache sign BUNDLE --key \(file)`, or store its contents as a CI secret in \
            \(BundleSigningKey.environmentVariable). Put the public key above in the app \
            (trustedKeys: [BundlePublicKey(base64: "…")]), with the public key of a second key kept offline \
            for rotation.

            """.utf8))
    }
}
