import Foundation

/// A public Ed25519 key whose signed statements an app trusts: the line `warm-cache keygen`
/// printed, pasted into the app.
///
/// ```swift
/// let configuration = BundleUpdater.Configuration(
///     trustedKeys: [try BundlePublicKey(base64: "5Zq0…Hc=")])
/// ```
///
/// Trust several keys to rotate without an app release: sign with one, keep the next one offline
/// (docs/bundle-format.md, "Rotating keys").
public struct BundlePublicKey: Sendable, Hashable, CustomStringConvertible {
    /// The key's 32 bytes (RFC 8032), base64 with padding: how `keygen` prints it.
    public let base64: String
    /// The first 8 bytes of the SHA-256 of the key's 32 bytes, 16 lowercase hex digits: the short
    /// name statements and messages use for the key.
    public let keyID: String
    let rawRepresentation: Data

    /// Reads a public key written as base64 (surrounding white space is ignored).
    /// - Throws: ``SigningError`` when `text` is not the base64 of 32 bytes, or is a secret key.
    public init(base64 text: String) throws(SigningError) {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        if trimmed.hasPrefix(BundleSigningKey.textPrefix) {
            throw SigningError("a secret signing key was given where a public key belongs; never put the secret key "
                + "in an app or on a command line: give the public key that `warm-cache keygen` printed")
        }
        guard let raw = Data(base64Encoded: trimmed), raw.count == 32 else {
            // The value is not quoted: it might be a mangled secret key.
            throw SigningError("the value given (\(trimmed.count) characters) is not a public key: expected the base64 "
                + "line of 44 characters that `warm-cache keygen` printed")
        }
        self.init(rawRepresentation: raw)
    }

    init(rawRepresentation raw: Data) {
        rawRepresentation = raw
        base64 = raw.base64EncodedString()
        keyID = Self.keyID(of: raw)
    }

    /// ``keyID`` of a key's 32 bytes.
    static func keyID(of raw: Data) -> String {
        SHA256.hash(data: raw).prefix(8).map { String(format: "%02x", $0) }.joined()
    }

    /// Whether `signature` is this key's Ed25519 signature of `message`.
    func isValidSignature(_ signature: Data, for message: Data) -> Bool {
        guard signature.count == 64,
              let key = try? Curve25519.Signing.PublicKey(rawRepresentation: rawRepresentation) else { return false }
        return key.isValidSignature(signature, for: message)
    }

    /// "public key" and its ``keyID``: safe to log.
    public var description: String { "public key \(keyID)" }

    /// Two keys are equal when their 32 bytes are.
    public static func == (a: BundlePublicKey, b: BundlePublicKey) -> Bool { a.rawRepresentation == b.rawRepresentation }
    /// Hashes the key's bytes.
    public func hash(into hasher: inout Hasher) { hasher.combine(rawRepresentation) }
}
