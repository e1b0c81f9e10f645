import Foundation

/// The publisher's secret Ed25519 key, which signs statements (`warm`, `merge`, `sign`).
///
/// Its text form, the content of the file `warm-cache keygen` writes and of the
/// `WARM_CACHE_SIGNING_KEY` environment variable, is one line: ``textPrefix`` followed by the
/// base64 of the key's 32 bytes (the RFC 8032 seed). The prefix tells a secret key from a public
/// one, so a secret key pasted where a public key belongs is refused instead of shipped.
///
/// The key never leaves this value except through ``text`` (written by `keygen` only): its
/// description, debug description and reflection show the key id, nothing else.
package struct BundleSigningKey: Sendable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    package static let textPrefix = "warm-cache-secret-key-ed25519:"
    /// The environment variable a CI secret puts the key in.
    package static let environmentVariable = "WARM_CACHE_SIGNING_KEY"

    private let key: Curve25519.Signing.PrivateKey
    package let publicKey: BundlePublicKey

    private init(_ key: Curve25519.Signing.PrivateKey) {
        self.key = key
        publicKey = BundlePublicKey(rawRepresentation: key.publicKey.rawRepresentation)
    }

    /// A new random key.
    package static func generate() -> BundleSigningKey {
        BundleSigningKey(Curve25519.Signing.PrivateKey())
    }

    /// Reads the text form; `origin` names where it came from in messages ("the file keys/app.key").
    package init(text: String, origin: String) throws(SigningError) {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard trimmed.hasPrefix(Self.textPrefix) else {
            if (try? BundlePublicKey(base64: trimmed)) != nil {
                throw SigningError("\(origin) holds a public key; signing needs the secret key file that "
                    + "`warm-cache keygen` wrote (the public key is the line it printed)")
            }
            throw SigningError("\(origin) does not hold a warm-cache signing key; give the file that "
                + "`warm-cache keygen` wrote, or its contents in \(Self.environmentVariable)")
        }
        guard let raw = Data(base64Encoded: String(trimmed.dropFirst(Self.textPrefix.count))), raw.count == 32,
              let key = try? Curve25519.Signing.PrivateKey(rawRepresentation: raw) else {
            throw SigningError("\(origin) holds a damaged signing key (it should be one line of "
                + "\(Self.textPrefix.count + 44) characters); restore it from where it is kept, e.g. the CI's secrets")
        }
        self.init(key)
    }

    /// Reads the key file at `url`. Warns through `warning` when other users may read it.
    package static func load(file url: URL, warning: (String) -> Void = { _ in }) throws(SigningError) -> BundleSigningKey {
        let data: Data
        do {
            data = try Data(contentsOf: url)
        } catch {
            let exists = FileManager.default.fileExists(atPath: url.path)
            throw SigningError("cannot read the signing key \(url.path): "
                + (exists ? "permission denied or not a file" : "no such file")
                + "; create one with `warm-cache keygen \(url.path)`")
        }
        let key = try BundleSigningKey(text: String(decoding: data, as: UTF8.self), origin: "the file \(url.path)")
        var status = stat()
        if stat(url.path, &status) == 0, status.st_mode & 0o077 != 0 {
            warning("the signing key \(url.path) can be read by other users; restrict it with `chmod 600 \(url.path)`")
        }
        return key
    }

    /// The key in ``environmentVariable``, or `nil` when it is unset or empty.
    package static func fromEnvironment(_ environment: [String: String] = ProcessInfo.processInfo.environment)
        throws(SigningError) -> BundleSigningKey?
    {
        guard let text = environment[environmentVariable],
              !text.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty else { return nil }
        return try BundleSigningKey(text: text, origin: "the environment variable \(environmentVariable)")
    }

    /// The secret text form. Only `keygen` writes it, with ``write(toNewFile:)``.
    private var text: String {
        Self.textPrefix + key.rawRepresentation.base64EncodedString()
    }

    /// Creates `url` with mode 0600 and writes the key's text form to it. Refuses an existing file
    /// (a key is never overwritten: the one it replaced may be the only copy).
    package func write(toNewFile url: URL) throws(SigningError) {
        let descriptor = open(url.path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            let reason = errno
            if reason == EEXIST {
                throw SigningError("\(url.path) already exists; keygen never overwrites a key (it may be the only "
                    + "copy): choose another file name")
            }
            throw SigningError("cannot create \(url.path): \(String(cString: strerror(reason))); choose a folder you can write to")
        }
        defer { close(descriptor) }
        let bytes = Array((text + "\n").utf8)
        let written = fchmod(descriptor, 0o600) == 0 ? bytes.withUnsafeBytes { Foundation.write(descriptor, $0.baseAddress, $0.count) } : -1
        guard written == bytes.count, fsync(descriptor) == 0 else {
            let reason = String(cString: strerror(errno))
            unlink(url.path)
            throw SigningError("cannot write \(url.path): \(reason)")
        }
    }

    package var keyID: String { publicKey.keyID }

    /// The Ed25519 signature of `message` (64 bytes).
    package func signature(for message: Data) throws(SigningError) -> Data {
        do {
            return try key.signature(for: message)
        } catch {
            throw SigningError("signing with key \(keyID) failed; generate a new key with `warm-cache keygen`")
        }
    }

    package var description: String { "signing key \(keyID)" }
    package var debugDescription: String { description }
    package var customMirror: Mirror { Mirror(self, children: ["keyID": keyID]) }
}
