import Crypto
import NIOCore

/// Why an attempt failed, plus what the retry loop needs to know: the server's
/// `Retry-After`, if it sent one.
struct AttemptFailure: Error {
    let kind: FetchError.Kind
    var retryAfter: Double?
    /// Body bytes the attempt received before it failed (they were downloaded all the same).
    var bytesReceived = 0
}

/// Streams a `200 OK` body into a ``StagingFile`` and checks it on the way:
///
/// - a running SHA-256, so the digest costs no second read of the file;
/// - the byte limit, so an oversized or endless body is cut off as soon as it crosses it;
/// - the content itself: the first ``SniffedFormat/sniffLength`` bytes must look like an
///   image, so a 200 HTML error page is rejected after one chunk, not after the download;
/// - the declared `Content-Length`, so a cut connection is a failed attempt, never a
///   truncated image.
struct BodyReceiver {
    let maxBytes: Int
    let expectedLength: Int?
    let contentType: String?
    private(set) var received = 0
    private(set) var format: SniffedFormat?
    private var hasher = SHA256()
    private var prefix: [UInt8] = []

    init(maxBytes: Int, expectedLength: Int?, contentType: String?) {
        self.maxBytes = maxBytes
        self.expectedLength = expectedLength
        self.contentType = contentType
    }

    /// Rejects a response up front when its `Content-Length` is over the limit.
    func checkDeclaredLength() throws {
        if let expectedLength, expectedLength > maxBytes {
            throw AttemptFailure(kind: .tooLarge(limit: maxBytes, declared: expectedLength))
        }
    }

    /// Checks, hashes and writes one chunk.
    mutating func consume(_ chunk: ByteBuffer, into file: StagingFile) throws {
        received += chunk.readableBytes
        if received > maxBytes {
            throw AttemptFailure(kind: .tooLarge(limit: maxBytes, declared: nil))
        }
        if let expectedLength, received > expectedLength {
            // NIO's decoder stops at Content-Length, so this only guards the invariant.
            throw AttemptFailure(kind: .connection("the server sent more bytes than its Content-Length"))
        }
        try chunk.withUnsafeReadableBytes { bytes in
            if format == nil {
                prefix.append(contentsOf: bytes.prefix(SniffedFormat.sniffLength - prefix.count))
            }
            hasher.update(bufferPointer: bytes)
            try file.write(bytes)
        }
        if format == nil, prefix.count >= SniffedFormat.sniffLength {
            try identify()
        }
    }

    /// The failure to report when the body stream itself broke after `received` bytes.
    func interruption(_ detail: String) -> AttemptFailure {
        if let expectedLength, received < expectedLength {
            return AttemptFailure(kind: .truncated(expected: expectedLength, received: received))
        }
        return AttemptFailure(kind: .connection("the body broke off after \(received) bytes: \(detail)"))
    }

    /// Verifies the finished body and returns its digest as lowercase hex.
    mutating func finish() throws -> (sha256: String, format: SniffedFormat) {
        if let expectedLength, received != expectedLength {
            throw AttemptFailure(kind: .truncated(expected: expectedLength, received: received))
        }
        if format == nil { try identify() }
        guard let format else { throw AttemptFailure(kind: .notAnImage(sniffed: "empty body", contentType: contentType)) }
        let digest = hasher.finalize()
        return (digest.map(Self.hex).joined(), format)
    }

    private mutating func identify() throws {
        guard let sniffed = SniffedFormat(prefix: prefix) else {
            let description = SniffedFormat.describeNonImage(prefix: prefix)
            throw AttemptFailure(kind: .notAnImage(sniffed: description, contentType: contentType))
        }
        format = sniffed
        prefix = []
    }

    private static let hexDigits = Array("0123456789abcdef")

    private static func hex(_ byte: UInt8) -> String {
        String([hexDigits[Int(byte >> 4)], hexDigits[Int(byte & 0x0F)]])
    }
}
