import ArgumentParser
import WarmCacheUpdates
import WarmCache

/// `--public-key KEY` (repeatable) of `pull` and `verify`: the keys whose signatures are trusted.
struct PublicKeyOptions: ParsableArguments {
    @Option(name: .customLong("public-key"),
            help: ArgumentHelp("A trusted public key, the line `keygen` printed (repeatable: any one may sign).",
                               valueName: "base64"))
    var publicKeys: [String] = []

    func validate() throws {
        _ = try parsed()
    }

    func parsed() throws -> [BundlePublicKey] {
        do {
            return try publicKeys.map { key throws(SigningError) in try BundlePublicKey(base64: key) }
        } catch {
            throw ValidationError("--public-key: \(PlainReason.of(error))")
        }
    }
}
