import Crypto
import Foundation
import WarmCache

/// The persistent store of downloaded originals, shared by runs (and by CI cache steps).
///
/// Layout under the cache directory:
/// ```
/// originals/<aa>/<sha256 of the source identifier>.orig   the bytes as the server sent them
/// originals/<aa>/<sha256 of the source identifier>.json   an OriginalRecord
/// ```
/// A download lands in the `.orig` file atomically (the fetcher renames a complete, fsynced
/// file into place), and the record is written after it, atomically but without a flush (it is
/// rewritten on every revalidation). A record that does not decode, or whose file is missing or
/// whose bytes no longer hash to the recorded SHA-256 (a crash between the two steps, a power
/// loss, a truncated copy from a CI cache) is discarded, and the original is fetched again.
struct OriginalsCache: Sendable {
    let directory: URL

    init(cacheDirectory: URL) {
        directory = cacheDirectory.appendingPathComponent("originals", isDirectory: true)
    }

    func dataURL(for identifier: SourceIdentifier) -> URL {
        base(for: identifier).appendingPathExtension("orig")
    }

    private func recordURL(for identifier: SourceIdentifier) -> URL {
        base(for: identifier).appendingPathExtension("json")
    }

    private func base(for identifier: SourceIdentifier) -> URL {
        let name = ContentHash.sha256(Data(identifier.rawValue.utf8))
        return directory.appendingPathComponent(String(name.prefix(2)), isDirectory: true)
            .appendingPathComponent(name)
    }

    /// The record of a cached original whose bytes are intact, or `nil` (and the broken entry
    /// removed) if there is none.
    func validRecord(for identifier: SourceIdentifier) -> OriginalRecord? {
        guard let data = try? Data(contentsOf: recordURL(for: identifier)),
              let record = try? Self.decoder.decode(OriginalRecord.self, from: data),
              record.identifier == identifier.rawValue else { return nil }
        guard let bytes = try? Data(contentsOf: dataURL(for: identifier), options: .alwaysMapped),
              bytes.count == record.byteCount, ContentHash.sha256(bytes) == record.sha256 else {
            try? FileManager.default.removeItem(at: recordURL(for: identifier))
            return nil
        }
        return record
    }

    private static var decoder: JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return decoder
    }

    /// Saves the record for an original already in place at ``dataURL(for:)``.
    func save(_ record: OriginalRecord, for identifier: SourceIdentifier) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .prettyPrinted]
        encoder.dateEncodingStrategy = .iso8601
        let url = recordURL(for: identifier)
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        let temporary = url.appendingPathExtension("\(UUID().uuidString).tmp")
        try DurableFile.write(try encoder.encode(record), to: temporary, flush: false)
        try DurableFile.move(temporary, to: url)
    }

    /// Removes `*.part` and `*.tmp` files that interrupted runs left behind. Only files older
    /// than `age` go, so a run sharing this cache directory concurrently keeps its own.
    func sweepLeftovers(olderThan age: TimeInterval = 3600) {
        let keys: [URLResourceKey] = [.contentModificationDateKey]
        guard let enumerator = FileManager.default.enumerator(at: directory, includingPropertiesForKeys: keys) else {
            return
        }
        let cutoff = Date().addingTimeInterval(-age)
        for case let url as URL in enumerator {
            let name = url.lastPathComponent
            guard name.hasSuffix(".part") || name.hasSuffix(".tmp") else { continue }
            let modified = (try? url.resourceValues(forKeys: Set(keys)))?.contentModificationDate ?? .distantPast
            if modified < cutoff {
                try? FileManager.default.removeItem(at: url)
            }
        }
    }
}

/// What the cache knows about one original.
struct OriginalRecord: Codable, Sendable, Equatable {
    var identifier: String
    var sha256: String
    var byteCount: Int
    var etag: String?
    var lastModified: String?
    /// When the server last confirmed these bytes (download or 304); drives `--max-age`.
    var checkedAt: Date

    var validators: CacheValidators {
        CacheValidators(etag: etag, lastModified: lastModified)
    }
}
