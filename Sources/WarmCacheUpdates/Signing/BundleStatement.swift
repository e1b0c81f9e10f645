import Foundation

/// What a publisher signs about one release of a bundle, kept beside its index as
/// `statement.json` (``WarmCache/BundleFormat/statementFileName``): which index (its SHA-256 and
/// size), a version that only grows, when it was signed and when it stops being current.
///
/// The file is a DSSE envelope (the "Dead Simple Signing Envelope" of in-toto and Sigstore):
///
/// ```json
/// { "payload": "<base64 of the payload>", "payloadType": "application/vnd.warmcache.statement+json",
///   "signatures": [ { "keyid": "<key id>", "sig": "<base64 Ed25519 signature>" } ] }
/// ```
///
/// Each signature signs `PAE(payloadType, payload)` (``preAuthenticationEncoding(of:)``), and the
/// payload is JSON read only after a signature checked out, so no JSON canonicalisation is
/// involved: a verifier in any language checks the bytes it received. docs/bundle-format.md
/// ("The signed statement") is the specification; this type is its one implementation in Swift,
/// shared by the signer (`warm`, `merge`, `sign`) and the updater.
package struct BundleStatement: Sendable, Equatable {
    /// The payload's `format`; a verifier refuses a higher one.
    package static let format = 1
    package static let payloadType = "application/vnd.warmcache.statement+json"
    /// The largest statement file accepted, in bytes (a real one is about 500).
    package static let maximumByteCount = 64 << 10
    /// Signatures looked at, at most (more are ignored).
    package static let maximumSignatures = 16
    /// The highest version: 2^53 − 1, exact in every JSON implementation.
    package static let maximumVersion: Int64 = 9_007_199_254_740_991

    package var index: IndexDigest
    package var version: Int64
    /// Whole seconds (the payload stores them so).
    package var signedAt: Date
    package var expiresAt: Date

    package init(index: IndexDigest, version: Int64, signedAt: Date, expiresAt: Date) {
        self.index = index
        self.version = version
        self.signedAt = Date(timeIntervalSince1970: signedAt.timeIntervalSince1970.rounded(.down))
        self.expiresAt = Date(timeIntervalSince1970: expiresAt.timeIntervalSince1970.rounded(.down))
    }

    package func isExpired(at now: Date) -> Bool {
        now >= expiresAt
    }

    // MARK: Writing

    /// The statement file: the payload signed by `key`.
    package func signed(by key: BundleSigningKey) throws(SigningError) -> Data {
        let payload = payloadBytes()
        let signature = try key.signature(for: Self.preAuthenticationEncoding(of: payload))
        let envelope = Envelope(payload: payload.base64EncodedString(), payloadType: Self.payloadType,
                                signatures: [.init(keyid: key.keyID, sig: signature.base64EncodedString())])
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        guard let data = try? encoder.encode(envelope) else { throw SigningError("cannot encode the statement") }
        return data + Data("\n".utf8)
    }

    /// The payload: compact JSON, keys sorted.
    func payloadBytes() -> Data {
        let payload = Payload(format: Self.format, indexSHA256: index.sha256, indexByteCount: index.byteCount,
                              version: version, signedAt: Self.timestamp(signedAt),
                              expiresAt: Self.timestamp(expiresAt))
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return (try? encoder.encode(payload)) ?? Data()
    }

    /// DSSE's pre-authentication encoding, the bytes a signature signs:
    /// `"DSSEv1" SP LEN(type) SP type SP LEN(payload) SP payload`, lengths in ASCII decimal bytes.
    package static func preAuthenticationEncoding(of payload: Data) -> Data {
        var message = Data("DSSEv1 \(payloadType.utf8.count) \(payloadType) \(payload.count) ".utf8)
        message.append(payload)
        return message
    }

    /// RFC 3339 in UTC, whole seconds: `2025-06-01T12:00:00Z`.
    package static func timestamp(_ date: Date) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime]
        formatter.timeZone = TimeZone(identifier: "UTC")
        return formatter.string(from: date)
    }

    static func date(_ text: String) -> Date? {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime]
        return formatter.date(from: text)
    }

    // MARK: File shapes

    struct Envelope: Codable {
        struct Signature: Codable {
            var keyid: String
            var sig: String
        }
        var payload: String
        var payloadType: String
        var signatures: [Signature]
    }

    struct Payload: Codable {
        var format: Int
        var indexSHA256: String
        var indexByteCount: Int64
        var version: Int64
        var signedAt: String
        var expiresAt: String
    }
}

/// A statement file as read: its statement, who signed it, and the file's bytes.
package struct SignedStatement: Sendable, Equatable {
    package var statement: BundleStatement
    /// The key ids its signatures name, as written.
    package var keyIDs: [String]
    /// The trusted key whose signature checked out (`nil` when read without checking).
    package var verifiedBy: String?
    /// The file, exactly as received.
    package var data: Data

    /// Checks `data` against `trustedKeys` (any one valid signature is enough), then reads the
    /// payload. Nothing of the payload is looked at before a signature checks out.
    package static func verify(_ data: Data, trustedKeys: [BundlePublicKey]) throws(StatementError) -> SignedStatement {
        let (envelope, payload) = try open(data)
        let message = BundleStatement.preAuthenticationEncoding(of: payload)
        let signatures = envelope.signatures.prefix(BundleStatement.maximumSignatures)
        for signature in signatures {
            guard let bytes = Data(base64Encoded: signature.sig) else { continue }
            // A key id is a hint (DSSE): every trusted key is tried, the named one first.
            let keys = trustedKeys.filter { $0.keyID == signature.keyid } + trustedKeys.filter { $0.keyID != signature.keyid }
            if let key = keys.first(where: { $0.isValidSignature(bytes, for: message) }) {
                var statement = try read(payload, data: data, envelope: envelope)
                statement.verifiedBy = key.keyID
                return statement
            }
        }
        let trustedIDs = Set(trustedKeys.map(\.keyID))
        if let claimed = signatures.first(where: { trustedIDs.contains($0.keyid) }) {
            throw StatementError(.badSignature(keyID: claimed.keyid))
        }
        throw StatementError(.untrustedKey(keyIDs: signatures.map(\.keyid)))
    }

    /// Reads `data` without checking any signature: for a bundle's own statement shown by
    /// `inspect`, or a shipped bundle's version (which can only make the updater stricter).
    package static func readUnverified(_ data: Data) throws(StatementError) -> SignedStatement {
        let (envelope, payload) = try open(data)
        return try read(payload, data: data, envelope: envelope)
    }

    /// The envelope and its decoded payload bytes.
    private static func open(_ data: Data) throws(StatementError) -> (BundleStatement.Envelope, Data) {
        guard data.count <= BundleStatement.maximumByteCount else {
            throw StatementError(.malformed, "it is larger than \(BundleStatement.maximumByteCount) bytes")
        }
        guard let envelope = try? JSONDecoder().decode(BundleStatement.Envelope.self, from: data) else {
            throw StatementError(.malformed, "it is not a JSON object with payload, payloadType and signatures")
        }
        guard envelope.payloadType == BundleStatement.payloadType else {
            throw StatementError(.malformed, "its payloadType is not \(BundleStatement.payloadType)")
        }
        guard let payload = Data(base64Encoded: envelope.payload) else {
            throw StatementError(.malformed, "its payload is not base64")
        }
        guard !envelope.signatures.isEmpty else {
            throw StatementError(.malformed, "it carries no signature")
        }
        return (envelope, payload)
    }

    private static func read(_ payload: Data, data: Data, envelope: BundleStatement.Envelope)
        throws(StatementError) -> SignedStatement
    {
        struct Format: Decodable { var format: Int }
        guard let format = try? JSONDecoder().decode(Format.self, from: payload) else {
            throw StatementError(.malformed, "its payload has no format number")
        }
        guard format.format <= BundleStatement.format else { throw StatementError(.newerFormat(format.format)) }
        guard let fields = try? JSONDecoder().decode(BundleStatement.Payload.self, from: payload) else {
            throw StatementError(.malformed, "its payload lacks a field or has one of the wrong type")
        }
        let hexDigits = Set("0123456789abcdef".utf8)
        guard format.format == BundleStatement.format,
              fields.indexSHA256.utf8.count == 64, fields.indexSHA256.utf8.allSatisfy(hexDigits.contains),
              fields.indexByteCount > 0,
              (1...BundleStatement.maximumVersion).contains(fields.version),
              let signedAt = BundleStatement.date(fields.signedAt),
              let expiresAt = BundleStatement.date(fields.expiresAt), expiresAt > signedAt else {
            throw StatementError(.malformed, "its payload has a value out of range")
        }
        let statement = BundleStatement(index: IndexDigest(sha256: fields.indexSHA256, byteCount: fields.indexByteCount),
                                        version: fields.version, signedAt: signedAt, expiresAt: expiresAt)
        return SignedStatement(statement: statement, keyIDs: envelope.signatures.map(\.keyid), verifiedBy: nil, data: data)
    }
}

/// Why a statement file was refused. Messages are plain and say nothing about where the file
/// came from: the caller adds that.
package struct StatementError: Error, Sendable, Equatable, CustomStringConvertible {
    package enum Kind: Sendable, Equatable {
        /// Not a statement: not JSON of the envelope's shape, a field missing or out of range.
        case malformed
        /// A payload format newer than this library reads.
        case newerFormat(Int)
        /// No signature by a trusted key.
        case untrustedKey(keyIDs: [String])
        /// A signature that names a trusted key but does not verify: the file was altered.
        case badSignature(keyID: String)
    }

    package let kind: Kind
    package let detail: String

    package init(_ kind: Kind, _ detail: String = "") {
        self.kind = kind
        self.detail = detail
    }

    package var description: String {
        switch kind {
        case .malformed: return "not a valid signed statement: \(detail)"
        case .newerFormat(let found):
            return "a statement of format \(found), newer than this library reads (\(BundleStatement.format))"
        case .untrustedKey(let keyIDs):
            return "signed by key " + (keyIDs.isEmpty ? "(none)" : keyIDs.joined(separator: ", "))
                + ", not one of the trusted keys"
        case .badSignature(let keyID):
            return "the signature by key \(keyID) does not match the statement (altered after signing)"
        }
    }
}
