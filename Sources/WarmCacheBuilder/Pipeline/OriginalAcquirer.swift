import Foundation
import Logging
import WarmCache

/// Gets the bytes of one source onto disk: a local file as it is, a remote one through the
/// originals cache and the fetcher (conditional requests, `--max-age`, `--offline`,
/// stale-if-error).
struct OriginalAcquirer: Sendable {
    let cache: OriginalsCache
    let fetcher: ImageFetcher?
    let options: WarmOptions
    let logger: Logger

    struct Acquired: Sendable {
        var fileURL: URL
        /// Known for cached and downloaded originals; local files are hashed when read.
        var sha256: String?
        var status: SourceReport.Status
        var bytesDownloaded: Int
        var warning: String?
    }

    /// A failure to obtain the original, with the text the report and the summary show.
    struct Failure: Error, Sendable {
        var message: String
        var bytesDownloaded = 0
    }

    func acquire(_ source: PlannedSource) async throws(Failure) -> Acquired {
        switch source.location {
        case .file(let url):
            guard FileManager.default.isReadableFile(atPath: url.path) else {
                throw Failure(message: "cannot read the local file \(url.path) (listed at \(source.manifestLocation))")
            }
            return Acquired(fileURL: url, sha256: nil, status: .local, bytesDownloaded: 0)
        case .remote(let url):
            return try await acquireRemote(url, identifier: source.identifier)
        }
    }

    private func acquireRemote(_ url: URL, identifier: SourceIdentifier) async throws(Failure) -> Acquired {
        let destination = cache.dataURL(for: identifier)
        let cache = self.cache
        // Checking a cached original hashes its bytes: a blocking read, kept off the cooperative pool.
        let record = await BlockingWork.run { cache.validRecord(for: identifier) }
        func cached(_ record: OriginalRecord, warning: String? = nil) -> Acquired {
            Acquired(fileURL: destination, sha256: record.sha256, status: .cached, bytesDownloaded: 0, warning: warning)
        }

        if options.offline {
            guard let record else {
                throw Failure(message: "\(url.absoluteString) was never fetched, and --offline forbids the network; "
                    + "run once online (or restore the cache directory \(cache.directory.deletingLastPathComponent().path))")
            }
            return cached(record)
        }
        if let record, let maxAge = options.maxAge, Date().timeIntervalSince(record.checkedAt) < maxAge {
            return cached(record)
        }
        guard let fetcher else {
            throw Failure(message: "internal error: no fetcher for \(url.absoluteString)")
        }

        let outcome: FetchOutcome
        do {
            outcome = try await fetcher.fetch(url, to: destination, validators: record?.validators)
        } catch let error as FetchError {
            if let record, !options.strict, error.kind.isTransient {
                let warning = "\(url.absoluteString): revalidation failed (\(error)); using the cached original "
                    + "from \(ISO8601DateFormatter().string(from: record.checkedAt))"
                logger.warning("\(warning)")
                return cached(record, warning: warning)
            }
            throw Failure(message: error.description)
        } catch {
            throw Failure(message: "\(url.absoluteString): \(error)")
        }

        switch outcome {
        case .notModified(let validators):
            guard var record else {
                throw Failure(message: "\(url.absoluteString): the server answered 304 to an unconditional request")
            }
            record.etag = validators.etag ?? record.etag
            record.lastModified = validators.lastModified ?? record.lastModified
            record.checkedAt = Date()
            let revalidated = record
            try? await BlockingWork.run { try cache.save(revalidated, for: identifier) }
            return Acquired(fileURL: destination, sha256: record.sha256, status: .revalidated, bytesDownloaded: 0)
        case .downloaded(let original):
            let fresh = OriginalRecord(identifier: identifier.rawValue, sha256: original.sha256,
                                       byteCount: original.byteCount, etag: original.validators.etag,
                                       lastModified: original.validators.lastModified, checkedAt: Date())
            do {
                try await BlockingWork.run { try cache.save(fresh, for: identifier) }
            } catch {
                throw Failure(message: "cannot record \(url.absoluteString) in the originals cache: "
                    + "\(error.localizedDescription)", bytesDownloaded: original.byteCount)
            }
            return Acquired(fileURL: destination, sha256: original.sha256, status: .fetched,
                            bytesDownloaded: original.byteCount)
        }
    }
}
