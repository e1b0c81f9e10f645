import Foundation

/// What the updater remembers about the release it installed, to revalidate it with one
/// conditional request. Kept in `<directory>/.update/state.json`.
struct UpdateState: Codable, Sendable, Equatable {
    /// The index URL the installed index came from.
    var indexURL: String
    /// The file the validators below belong to: the statement for a signed update, the index for
    /// an unsigned one. (`nil` in states written before signing existed: the index.)
    var validatedURL: String?
    var etag: String?
    var lastModified: String?
    var indexByteCount: Int64
    var indexSHA256: String
    var installedAt: Date
    /// The highest signed version this folder ever installed: a later statement must not be lower,
    /// even after an unsigned install removed the signed one (docs/bundle-format.md, "Security model").
    var highestSignedVersion: Int64?

    /// The file the validators belong to.
    var revalidatedURL: String { validatedURL ?? indexURL }

    /// The installed index's digest.
    var index: IndexDigest { IndexDigest(sha256: indexSHA256, byteCount: indexByteCount) }

    /// The request headers that ask the server to answer `304` if the file is unchanged.
    var conditionalHeaders: [String: String] {
        var headers: [String: String] = [:]
        if let etag { headers["If-None-Match"] = etag }
        if let lastModified { headers["If-Modified-Since"] = lastModified }
        return headers
    }

    /// The validators of `response` that can be trusted to change whenever the file does.
    ///
    /// Static servers derive both from the file's modification time in whole seconds (nginx's
    /// `ETag` is that second and the size), so a file replaced within the second it was served
    /// in, at the same size, keeps its validators and would be answered `304` for ever after.
    /// As RFC 9110 §8.8.2.2 says of `Last-Modified`, they are trusted only when the response's
    /// `Date` is at least one second later; otherwise none are kept, and the next update asks
    /// unconditionally (and keeps that answer's validators, by then a second or more old).
    static func trustworthyValidators(of response: TransferResponse) -> (etag: String?, lastModified: String?) {
        let etag = response.header("ETag")
        guard let lastModified = response.header("Last-Modified") else { return (etag, nil) }
        guard let modified = HTTPDate.parse(lastModified),
              let date = response.header("Date").flatMap(HTTPDate.parse),
              date.timeIntervalSince(modified) >= 1 else { return (nil, nil) }
        return (etag, lastModified)
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

/// IMF-fixdate (`Sun, 06 Nov 1994 08:49:37 GMT`), the form servers send in `Date` and
/// `Last-Modified` (RFC 9110 §5.6.7).
enum HTTPDate {
    static func parse(_ text: String) -> Date? {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss zzz"
        return formatter.date(from: text)
    }
}
