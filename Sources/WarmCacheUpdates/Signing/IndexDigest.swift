import Foundation

/// What a statement says about an index file: its SHA-256 and its size. Two indexes with the
/// same digest are the same bytes.
package struct IndexDigest: Sendable, Hashable, Codable, CustomStringConvertible {
    /// 64 lowercase hex digits.
    package var sha256: String
    package var byteCount: Int64

    package init(sha256: String, byteCount: Int64) {
        self.sha256 = sha256
        self.byteCount = byteCount
    }

    /// Hashes the file at `url`, reading it in pieces (an index may be tens of MB).
    package init(contentsOf url: URL) throws {
        let handle = try FileHandle(forReadingFrom: url)
        defer { try? handle.close() }
        var hasher = SHA256()
        var count: Int64 = 0
        while let chunk = try handle.read(upToCount: 1 << 20), !chunk.isEmpty {
            hasher.update(data: chunk)
            count += Int64(chunk.count)
        }
        self.init(sha256: hasher.finalize().map { String(format: "%02x", $0) }.joined(), byteCount: count)
    }

    package var description: String { "SHA-256 \(sha256), \(byteCount) bytes" }
}
