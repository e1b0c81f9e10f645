import Foundation

/// What the updater remembers about the index it installed, to revalidate it with one
/// conditional request. Kept in `<directory>/.update/state.json`.
struct UpdateState: Codable, Sendable, Equatable {
    /// The index URL these validators belong to.
    var indexURL: String
    var etag: String?
    var lastModified: String?
    var indexByteCount: Int
    var indexSHA256: String
    var installedAt: Date

    /// The request headers that ask the server to answer `304` if the index is unchanged.
    var conditionalHeaders: [String: String] {
        var headers: [String: String] = [:]
        if let etag { headers["If-None-Match"] = etag }
        if let lastModified { headers["If-Modified-Since"] = lastModified }
        return headers
    }

    static func read(from url: URL) -> UpdateState? {
        guard let data = try? Data(contentsOf: url) else { return nil }
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return try? decoder.decode(UpdateState.self, from: data)
    }

    /// Writes atomically (temporary file, then rename).
    func write(to url: URL) throws {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        try encoder.encode(self).write(to: url, options: .atomic)
    }
}
