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
        /// The record write this acquisition still owes the originals cache, left to the
        /// pipeline, which writes the records of finished sources in batches (``writeRecord(of:)``).
        var pendingRecord: PendingRecord?
    }

    /// A write to the originals cache that follows a request.
    enum PendingRecord: Sendable {
        /// A `304` with the validators on record: note the confirmation, without rewriting the record.
        case confirm(OriginalsCache.Entry)
        /// A `304` with new validators, or for a record not saved under the file's stamp.
        case revalidated(OriginalRecord, OriginalsCache.Entry)
        /// A download just renamed into place: without its record the next run downloads again.
        case downloaded(OriginalRecord, OriginalsCache.Entry)
    }

    /// Writes `acquired`'s pending record, if any. Blocking (file system): call it on a Dispatch
    /// thread. A revalidation that cannot be written is dropped (it only costs a conditional
    /// request next time); a download that cannot be recorded fails the source.
    func writeRecord(of acquired: Acquired) throws(Failure) {
        switch acquired.pendingRecord {
        case nil:
            return
        case .confirm(let entry):
            try? cache.confirm(entry)
        case .revalidated(let record, let entry):
            try? cache.save(record, at: entry)
        case .downloaded(var record, let entry):
            record.stamp = cache.stamp(for: entry)
            do {
                try cache.save(record, at: entry)
            } catch {
                // Without its record the download is of no use to the next run: it goes (it may be
                // what filled the disk).
                unlink(entry.dataPath)
                let reason = DiskSpace.isExhausted(by: error) ? String(cString: strerror(ENOSPC))
                    : PlainReason.of(error)
                throw Failure(SourceFailure(.fileSystem, "cannot record the download in the originals cache "
                    + "\(cache.directory.path): \(reason)"), bytesDownloaded: record.byteCount)
            }
        }
    }

    /// A failure to obtain the original, as the report shows it.
    struct Failure: Error, Sendable {
        var failure: SourceFailure
        var bytesDownloaded = 0

        init(_ failure: SourceFailure, bytesDownloaded: Int = 0) {
            self.failure = failure
            self.bytesDownloaded = bytesDownloaded
        }
    }

    /// What the originals cache holds for one remote source, read before it is acquired.
    struct Cached: Sendable {
        let entry: OriginalsCache.Entry
        /// The record of a cached original whose bytes are intact, and whether the saved record
        /// holds the file's current stamp (see ``OriginalsCache/validRecord(at:)``).
        let found: (record: OriginalRecord, isSaved: Bool)?

        /// The SHA-256 of the cached original, if there is one.
        var sha256: String? { found?.record.sha256 }
    }

    /// Step 1 for a remote source, blocking (SQLite, and a `stat` or a hash of the cached file):
    /// what the originals cache holds for it. The pipeline reads it for a batch of sources at a
    /// time on one Dispatch thread; `nil` for a local file.
    func check(_ source: PlannedSource) -> Cached? {
        guard case .remote = source.location else { return nil }
        return check(source.identifier)
    }

    /// When an original was last confirmed matters only to `--max-age` (and to the warning of a
    /// failed revalidation, which looks it up then).
    private func check(_ identifier: SourceIdentifier) -> Cached {
        let entry = cache.entry(for: identifier)
        return Cached(entry: entry, found: cache.validRecord(at: entry, includingConfirmations: options.maxAge != nil))
    }

    /// Step 2: gets `source`'s original, given what ``check(_:)`` found (read now if `nil`).
    func acquire(_ source: PlannedSource, cached: Cached?) async throws(Failure) -> Acquired {
        switch source.location {
        case .file(let url):
            guard FileManager.default.isReadableFile(atPath: url.path) else {
                let exists = FileManager.default.fileExists(atPath: url.path)
                throw Failure(SourceFailure(.fileSystem, exists
                    ? "the file cannot be read; check its permissions"
                    : "no such file; check the path (relative paths start at the manifest's folder)"))
            }
            return Acquired(fileURL: url, sha256: nil, status: .local, bytesDownloaded: 0)
        case .remote(let url):
            let checked: Cached
            if let cached {
                checked = cached
            } else {
                let identifier = source.identifier
                checked = await BlockingWork.run { check(identifier) }
            }
            return try await acquireRemote(url, entry: checked.entry, found: checked.found)
        }
    }

    private func acquireRemote(_ url: URL, entry: OriginalsCache.Entry,
                               found: (record: OriginalRecord, isSaved: Bool)?) async throws(Failure) -> Acquired {
        let identifier = entry.identifier
        let destination = entry.dataURL
        let record = found?.record
        func cached(_ record: OriginalRecord, warning: String? = nil) -> Acquired {
            Acquired(fileURL: destination, sha256: record.sha256, status: .cached, bytesDownloaded: 0, warning: warning)
        }

        if options.offline {
            guard let record else {
                throw Failure(SourceFailure(.offline, "never downloaded, and --offline forbids the network; "
                    + "run once online (or restore the cache directory \(cache.directory.deletingLastPathComponent().path))"))
            }
            return cached(record)
        }
        if let record, let maxAge = options.maxAge, Date().timeIntervalSince(record.checkedAt) < maxAge {
            return cached(record)
        }
        guard let fetcher else {
            throw Failure(SourceFailure(.invalidRequest, "internal error: no fetcher for this URL"))
        }

        let outcome: FetchOutcome
        do {
            outcome = try await fetcher.fetch(url, to: destination, validators: record?.validators)
        } catch let error as FetchError {
            if let record, !options.strict, error.kind.isTransient {
                // The record was read without its confirmations unless --max-age asked for them.
                let cache = self.cache
                let confirmedAt = await BlockingWork.run { cache.lastConfirmed(entry) }
                let checkedAt = max(record.checkedAt, confirmedAt ?? record.checkedAt)
                let warning = "revalidation failed (\(error.summary)); using the cached original "
                    + "from \(ISO8601DateFormatter().string(from: checkedAt))"
                logger.debug("\(url.absoluteString): \(warning)")
                var acquired = cached(record, warning: warning)
                acquired.bytesDownloaded = error.bytesReceived
                return acquired
            }
            throw Failure(SourceFailure(error), bytesDownloaded: error.bytesReceived)
        } catch {
            throw Failure(SourceFailure(.connection, "\(PlainReason.of(error))"))
        }

        switch outcome {
        case .notModified(let validators):
            guard var record else {
                throw Failure(SourceFailure(.httpStatus, "the server answered 304 Not Modified to an unconditional request",
                                            httpStatus: 304))
            }
            let unchanged = (validators.etag ?? record.etag) == record.etag
                && (validators.lastModified ?? record.lastModified) == record.lastModified
            record.etag = validators.etag ?? record.etag
            record.lastModified = validators.lastModified ?? record.lastModified
            record.checkedAt = Date()
            let isSaved = unchanged && found?.isSaved == true
            return Acquired(fileURL: destination, sha256: record.sha256, status: .revalidated, bytesDownloaded: 0,
                            pendingRecord: isSaved ? .confirm(entry) : .revalidated(record, entry))
        case .downloaded(let original):
            let fresh = OriginalRecord(identifier: identifier.rawValue, sha256: original.sha256,
                                       byteCount: original.byteCount, etag: original.validators.etag,
                                       lastModified: original.validators.lastModified, checkedAt: Date())
            return Acquired(fileURL: destination, sha256: original.sha256, status: .fetched,
                            bytesDownloaded: original.bytesReceived, pendingRecord: .downloaded(fresh, entry))
        }
    }
}
