import AsyncHTTPClient
import Foundation
import Logging
import NIOCore
import WarmCache

/// Downloads original images over HTTP(S) into files, for the build-time pipeline.
///
/// One fetcher serves a whole build: it owns one `HTTPClient` whose connection pool is
/// shared by all downloads (HTTP/1.1 keep-alive, or HTTP/2 when a TLS server offers it
/// through ALPN). Call ``fetch(_:to:validators:)`` from as many tasks as you like:
///
/// - at most `concurrency` requests are in flight overall and `perHost` per `host:port`;
///   the rest wait their turn (FIFO) without blocking threads;
/// - concurrent calls for the same URL (and validators) share one download;
/// - transient failures (dropped connections, timeouts, truncated bodies, 5xx, 408, 429) are
///   retried with exponential backoff and jitter, honouring `Retry-After`; a host that cannot
///   be reached is not, and the run's other downloads from it fail at once;
/// - `HTTPS_PROXY`-style proxies are used as ``FetchSettings/proxies`` says;
/// - a body lands at its destination only when it is complete, within `maxBytes`,
///   recognisably an image, and fsynced; it is written beside the destination first and
///   renamed into place, so the destination never holds a partial file.
///
/// Call ``shutdown()`` when done; downloads still running are cancelled. A fetcher must
/// be shut down before it is released: AsyncHTTPClient traps in debug builds when a
/// client is deinitialised while running. ``withFetcher(settings:logger:_:)`` takes
/// care of that.
public final class ImageFetcher: Sendable {
    /// The settings it downloads with, clamped into usable ranges.
    public let settings: FetchSettings
    private let clients: HTTPClients
    private let downloader: Downloader
    private let retryPolicy: RetryPolicy
    private let coalescer = RequestCoalescer<CoalescingKey, SharedOutcome>()
    private let isShutDown = Locked(false)
    private let logger: Logger
    /// ``FetchSettings/firstInvalidHeaderName``, checked once rather than per fetch.
    private let invalidHeaderName: String?

    /// Calls for the same URL share a download only if they also send the same
    /// validators; otherwise one might get `304` while the other needs the bytes.
    private struct CoalescingKey: Hashable, Sendable {
        let url: String
        let validators: CacheValidators?
    }

    /// A coalesced download's result, shared by every caller that waited for it.
    private enum SharedOutcome: Sendable {
        case downloaded(StagedDownload, FetchedOriginal)
        case notModified(CacheValidators)
    }

    /// - Parameter onBytes: told the size of every body chunk as it arrives, from any thread
    ///   (progress by bytes; failed attempts' bytes count too).
    public init(settings: FetchSettings = .defaults, logger: Logger,
                onBytes: (@Sendable (Int) -> Void)? = nil) {
        let settings = settings.clamped
        self.settings = settings
        // The fetcher and AsyncHTTPClient log only debug and trace messages. Above that level
        // nothing is written, but AsyncHTTPClient still sets metadata on the logger twice per
        // request, and a stream handler renders its metadata on every change (~1 % of a
        // re-warm's CPU): a logger that discards everything costs nothing.
        let logger = logger.logLevel <= .debug
            ? logger : Logger(label: logger.label, factory: { _ in SwiftLogNoOpLogHandler() })
        self.logger = logger
        invalidHeaderName = settings.firstInvalidHeaderName
        clients = HTTPClients(settings: settings, logger: logger)
        downloader = Downloader(
            clients: clients,
            settings: settings,
            globalLimit: AsyncSemaphore(limit: settings.concurrency),
            hostLimits: KeyedSemaphores(limit: settings.perHost),
            onBytes: onBytes)
        retryPolicy = RetryPolicy(settings: settings)
    }

    /// Downloads `url` into `destination`.
    ///
    /// - Parameters:
    ///   - url: an `http` or `https` URL.
    ///   - destination: the file to create or replace. Its directory is created if needed.
    ///   - validators: what the last build stored; when given, the request is conditional
    ///     and an unchanged image comes back as ``FetchOutcome/notModified(_:)`` with
    ///     `destination` left untouched.
    /// - Throws: ``FetchError`` describing the final failure, or `CancellationError` if
    ///   the calling task is cancelled.
    public func fetch(_ url: URL, to destination: URL, validators: CacheValidators? = nil) async throws -> FetchOutcome {
        let scheme = url.scheme?.lowercased() ?? ""
        guard URLRules.allowedSchemes.contains(scheme) else {
            throw FetchError(url: url, kind: .unsupportedScheme(scheme), attempts: 0)
        }
        guard !isShutDown.withLock({ $0 }) else {
            throw FetchError(url: url, kind: .shutDown, attempts: 0)
        }
        if let name = invalidHeaderName {
            throw FetchError(url: url, kind: .invalidHeader(name: name), attempts: 0)
        }
        let validators = (validators?.isEmpty ?? true) ? nil : validators
        let key = CoalescingKey(url: url.absoluteString, validators: validators)

        let shared: SharedOutcome
        do {
            shared = try await coalescer.value(for: key) {
                try await self.download(url, validators: validators, stagingBeside: destination)
            }
        } catch is CancellationError where isShutDown.withLock({ $0 }) && !Task.isCancelled {
            throw FetchError(url: url, kind: .shutDown, attempts: 0)
        }

        switch shared {
        case .notModified(let fresh):
            return .notModified(fresh)
        case .downloaded(let staged, let original):
            do {
                // A link, or a copy that is fsynced: blocking, so not on the cooperative pool.
                try await BlockingWork.run { try staged.install(at: destination) }
            } catch {
                throw FetchError(url: url, kind: .fileSystem(PlainReason.of(error)), attempts: original.attempts,
                                 bytesReceived: original.bytesReceived)
            }
            return .downloaded(original)
        }
    }

    /// Runs `body` with a new fetcher and shuts it down afterwards, whether `body`
    /// returns or throws.
    public static func withFetcher<T>(
        settings: FetchSettings = .defaults, logger: Logger,
        _ body: (ImageFetcher) async throws -> T
    ) async throws -> T {
        let fetcher = ImageFetcher(settings: settings, logger: logger)
        let result: T
        do {
            result = try await body(fetcher)
        } catch {
            try? await fetcher.shutdown()
            throw error
        }
        try await fetcher.shutdown()
        return result
    }

    /// Cancels downloads in progress and closes all connections. Further `fetch` calls
    /// fail with ``FetchError/Kind/shutDown``. Call it exactly once, when the build is done.
    public func shutdown() async throws {
        isShutDown.withLock { $0 = true }
        // Requests in flight fail as their connections close; the retry loop then stops.
        try await clients.shutdown()
    }

    // MARK: Retry loop

    private func download(
        _ url: URL, validators: CacheValidators?, stagingBeside destination: URL
    ) async throws -> SharedOutcome {
        var logger = logger
        if logger.logLevel <= .debug {  // only debug and trace messages are logged from here on
            logger[metadataKey: "url"] = "\(url.absoluteString)"
        }
        let started = ProcessInfo.processInfo.systemUptime

        // Ends by returning, or by throwing once `shouldRetry` says no (at the latest on
        // attempt `maxAttempts`).
        var attempt = 0
        var bytesOfFailedAttempts = 0
        while true {
            attempt += 1
            logger.debug("Download attempt \(attempt) of \(retryPolicy.maxAttempts)")
            do {
                switch try await downloader.attempt(
                    url, validators: validators, stagingBeside: destination,
                    logger: logger)
                {
                case .notModified(let fresh):
                    logger.debug("Not modified")
                    return .notModified(fresh)
                case .downloaded(let staged, let response):
                    let original = FetchedOriginal(
                        finalURL: response.finalURL, byteCount: staged.byteCount, sha256: staged.sha256,
                        validators: response.validators, contentType: response.contentType,
                        sniffedFormat: staged.sniffedFormat, attempts: attempt,
                        duration: ProcessInfo.processInfo.systemUptime - started,
                        bytesReceived: bytesOfFailedAttempts + staged.byteCount)
                    logger.debug(
                        "Downloaded",
                        metadata: ["bytes": "\(staged.byteCount)", "format": "\(staged.sniffedFormat.rawValue)"])
                    return .downloaded(staged, original)
                }
            } catch let failure as AttemptFailure {
                bytesOfFailedAttempts += failure.bytesReceived
                if isShutDown.withLock({ $0 }) {
                    throw FetchError(url: url, kind: .shutDown, attempts: attempt, bytesReceived: bytesOfFailedAttempts)
                }
                let error = FetchError(url: url, kind: failure.kind, attempts: attempt,
                                       bytesReceived: bytesOfFailedAttempts)
                // A host that never answered in this run and could not be connected to is written
                // off: retrying it would only multiply the connect timeout.
                let writtenOff = failure.kind.meansHostUnreachable && downloader.isWrittenOff(url)
                guard !writtenOff, retryPolicy.shouldRetry(failure.kind, attempt: attempt) else {
                    logger.debug("Giving up: \(error)")
                    throw error
                }
                let delay = retryPolicy.delay(afterAttempt: attempt, retryAfter: failure.retryAfter)
                logger.debug(
                    "Retrying",
                    metadata: [
                        "reason": "\(error.kind)", "delay": "\(String(format: "%.3f", delay)) s",
                        "retryAfter": "\(failure.retryAfter.map { "\($0) s" } ?? "none")",
                    ])
                try await Task.sleep(nanoseconds: UInt64(delay * 1e9))
            }
        }
    }
}
