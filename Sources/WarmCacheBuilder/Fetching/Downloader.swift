import AsyncHTTPClient
import Foundation
import Logging
import NIOCore
import NIOHTTP1
import WarmCache

/// Performs one download *attempt*: follows redirects itself (to enforce the scheme
/// rule and count hops), holds the concurrency permits while a request is on the wire,
/// and streams a `200 OK` body into a staging file.
///
/// Retries, coalescing and installing at the destination are ``ImageFetcher``'s job.
struct Downloader: Sendable {
    let clients: HTTPClients
    let settings: FetchSettings
    let globalLimit: AsyncSemaphore
    let hostLimits: KeyedSemaphores
    /// Hosts that could not be reached in this run, with the failure: later attempts to them
    /// fail at once, so a dead host costs one connect timeout, not one per source.
    let unreachable = Locked<[String: FetchError.Kind]>([:])
    /// Hosts that have answered in this run: never marked unreachable (a server restarting
    /// mid-run, or a slow moment, must not fail everything after it).
    let reached = Locked<Set<String>>([])
    /// Told the size of every body chunk as it arrives (for progress by bytes).
    let onBytes: (@Sendable (Int) -> Void)?

    /// What one attempt produced.
    enum AttemptOutcome: Sendable {
        case downloaded(StagedDownload, Response)
        case notModified(CacheValidators)
    }

    /// Facts about the final response that the caller reports.
    struct Response: Sendable {
        var finalURL: URL
        var contentType: String?
        var validators: CacheValidators
    }

    /// One hop's answer: either the end of the attempt, or where to go next.
    private enum Hop: Sendable {
        case done(AttemptOutcome)
        case redirect(status: Int, location: String?)
    }

    /// Runs one attempt.
    ///
    /// - Parameter destination: where the caller will install the original: a body is written
    ///   beside it while it downloads (so installing it is a cheap link and rename).
    /// - Throws: ``AttemptFailure`` for anything the retry loop should judge, or
    ///   `CancellationError` if the calling task was cancelled.
    func attempt(
        _ url: URL, validators: CacheValidators?, stagingBeside destination: URL, logger: Logger
    ) async throws -> AttemptOutcome {
        var current = url
        // The URLs visited, once the first redirect comes (most attempts have none).
        var visited: Set<String> = []
        var deadline: NIODeadline?

        // One pass per hop; at most maxRedirects redirects, then one more for the answer.
        for hopNumber in 0...settings.maxRedirects {
            let sendsCustomHeaders = hopNumber == 0 || URLRules.origin(of: current) == URLRules.origin(of: url)
            if !sendsCustomHeaders, !headers(forHost: url.host).isEmpty {
                logger.debug("Not sending configured headers across origins", metadata: ["to": "\(current)"])
            }
            let request = makeRequest(current, validators: validators, customHeaders: sendsCustomHeaders)
            let hopURL = current
            // Once per hop: the permits, the hosts written off and the hosts that answered are keyed by it.
            let hostKey = URLRules.hostKey(of: hopURL)
            let hop = try await withPermits(forHost: hostKey) {
                if let known = unreachable.withLock({ $0[hostKey] }) {
                    throw AttemptFailure(kind: known)
                }
                // The whole-attempt clock starts once the first request may go out, so
                // time spent queued behind the concurrency limits is not counted.
                let hopDeadline = deadline ?? .now() + .nanoseconds(Int64(settings.requestTimeout * 1e9))
                deadline = hopDeadline
                do {
                    return try await self.exchange(
                        request, url: hopURL, hostKey: hostKey, deadline: hopDeadline, validators: validators,
                        stagingBeside: destination, logger: logger)
                } catch {
                    let classified = classify(error, url: hopURL)
                    if let failure = classified as? AttemptFailure, failure.kind.meansHostUnreachable {
                        markUnreachable(hostKey, failure.kind)
                    }
                    throw classified
                }
            }
            switch hop {
            case .done(let result):
                return result
            case .redirect(let status, let location):
                let next = try URLRules.redirectTarget(location, from: current)
                logger.trace("Following redirect", metadata: ["status": "\(status)", "location": "\(next)"])
                if visited.isEmpty { visited.insert(url.absoluteString) }
                if visited.contains(next.absoluteString) {
                    throw AttemptFailure(kind: .tooManyRedirects(limit: settings.maxRedirects, loop: true))
                }
                visited.insert(next.absoluteString)
                current = next
            }
        }
        throw AttemptFailure(kind: .tooManyRedirects(limit: settings.maxRedirects, loop: false))
    }

    // MARK: One request

    /// Sends one request and handles its response completely (body included), all before `deadline`.
    ///
    /// AsyncHTTPClient's deadline covers the wait for a connection and for the response head; a
    /// body is then read under ``withTimeLimit(_:operation:)`` for the time that is left. A `304`
    /// has no body (HTTP forbids one), so the answer to a revalidation, most of a re-warm's
    /// requests, costs no timer task.
    private func exchange(
        _ request: HTTPClientRequest, url: URL, hostKey: String, deadline: NIODeadline, validators: CacheValidators?,
        stagingBeside destination: URL, logger: Logger
    ) async throws -> Hop {
        let response: HTTPClientResponse
        do {
            response = try await clients.client(for: url).execute(request, deadline: deadline, logger: logger)
        } catch {
            throw classifyHeadFailure(error, url: url, hostKey: hostKey)
        }
        reached.withLock { if !$0.contains(hostKey) { $0.insert(hostKey) } }
        let status = Int(response.status.code)
        logger.debug("HTTP \(status)", metadata: ["url": "\(url)"])
        let remaining = Double((deadline - .now()).nanoseconds) / 1e9

        switch status {
        case 301, 302, 303, 307, 308:
            try await withTimeLimit(remaining) { await Self.drain(response.body) }
            return .redirect(status: status, location: response.headers.first(name: "location"))
        case 304 where !(validators?.isEmpty ?? true):
            await Self.drain(response.body)
            let etag = response.headers.first(name: "etag") ?? validators?.etag
            let lastModified = response.headers.first(name: "last-modified") ?? validators?.lastModified
            return .done(.notModified(CacheValidators(etag: etag, lastModified: lastModified)))
        case 200, 203:
            let staged = try await withTimeLimit(remaining) {
                try await self.receive(response, stagingBeside: destination)
            }
            let facts = Response(
                finalURL: url,
                contentType: response.headers.first(name: "content-type"),
                validators: CacheValidators(
                    etag: response.headers.first(name: "etag"),
                    lastModified: response.headers.first(name: "last-modified")))
            return .done(.downloaded(staged, facts))
        default:
            try await withTimeLimit(remaining) { await Self.drain(response.body) }
            let retryAfter = response.headers.first(name: "retry-after").flatMap {
                RetryPolicy.retryAfterSeconds($0)
            }
            throw AttemptFailure(kind: .httpStatus(status), retryAfter: retryAfter)
        }
    }

    /// Streams a successful body to a staging file and verifies it, reporting bytes as they arrive.
    private func receive(
        _ response: HTTPClientResponse, stagingBeside destination: URL
    ) async throws -> StagedDownload {
        var receiver = BodyReceiver(
            maxBytes: settings.maxBytes,
            expectedLength: response.headers.first(name: "content-length").flatMap { Int($0) },
            contentType: response.headers.first(name: "content-type"))
        try receiver.checkDeclaredLength()

        let file: StagingFile
        do {
            file = try StagingFile(in: destination.deletingLastPathComponent(), for: destination.lastPathComponent)
        } catch {
            throw AttemptFailure(kind: .fileSystem(PlainReason.of(error)))
        }
        do {
            do {
                for try await chunk in response.body {
                    try receiver.consume(chunk, into: file)
                    onBytes?(chunk.readableBytes)
                }
            } catch let error as AttemptFailure {
                throw error
            } catch let error as FileSystemFailure {
                throw AttemptFailure(kind: .fileSystem(error.description))
            } catch is CancellationError {
                throw CancellationError()
            } catch {
                if Task.isCancelled { throw CancellationError() }
                throw receiver.interruption(redact(Self.plainReason(error)))
            }
            let (sha256, format) = try receiver.finish()
            do {
                try await file.finish()
            } catch {
                throw AttemptFailure(kind: .fileSystem(PlainReason.of(error)))
            }
            return StagedDownload(url: file.url, byteCount: receiver.received, sha256: sha256, sniffedFormat: format)
        } catch var failure as AttemptFailure {
            file.discard()
            failure.bytesReceived = receiver.received
            throw failure
        } catch {
            file.discard()
            throw error
        }
    }

    // MARK: Helpers

    /// Makes later attempts to the host (``URLRules/hostKey(of:)``) fail at once with `kind`,
    /// unless it has answered before.
    func markUnreachable(_ host: String, _ kind: FetchError.Kind) {
        guard !reached.withLock({ $0.contains(host) }) else { return }
        unreachable.withLock { $0[host] = kind }
    }

    /// Whether `url`'s host has been written off for this run (see ``markUnreachable(_:_:)``).
    func isWrittenOff(_ url: URL) -> Bool {
        unreachable.withLock { $0[URLRules.hostKey(of: url)] != nil }
    }

    /// Holds a permit for the host (``URLRules/hostKey(of:)``), then a global one, while `body`
    /// runs. The host permit comes first so that a task waiting on a busy host does not sit on a
    /// global permit that requests to other hosts could use.
    private func withPermits<T>(forHost host: String, _ body: () async throws -> T) async throws -> T {
        try await hostLimits.semaphore(for: host).withPermit {
            try await globalLimit.withPermit(body)
        }
    }

    /// The headers configured for `host` (the global ones when the URL has none).
    private func headers(forHost host: String?) -> [FetchHeader] {
        host.map { settings.headers(forHost: $0) } ?? settings.headers
    }

    private func makeRequest(_ url: URL, validators: CacheValidators?, customHeaders: Bool) -> HTTPClientRequest {
        var request = HTTPClientRequest(url: url.absoluteString)
        request.method = .GET
        let custom = customHeaders ? headers(forHost: url.host) : []
        if !custom.contains(where: { $0.name.lowercased() == "user-agent" }) {
            request.headers.add(name: "User-Agent", value: settings.userAgent)
        }
        if !custom.contains(where: { $0.name.lowercased() == "accept" }) {
            request.headers.add(name: "Accept", value: "image/*, */*;q=0.8")
        }
        for header in custom {
            request.headers.add(name: header.name, value: header.value.unredactedValue)
        }
        if let etag = validators?.etag { request.headers.add(name: "If-None-Match", value: etag) }
        if let lastModified = validators?.lastModified {
            request.headers.add(name: "If-Modified-Since", value: lastModified)
        }
        return request
    }

    /// Reads and discards a small body (a redirect's or an error page) so the connection
    /// can be reused; a large one is abandoned instead, which closes the connection.
    private static func drain(_ body: HTTPClientResponse.Body) async {
        var seen = 0
        do {
            for try await chunk in body {
                seen += chunk.readableBytes
                if seen > 64 * 1024 { return }
            }
        } catch {
            return  // the response is already judged by its status; nothing to add
        }
    }

    /// Replaces configured header values in library error text (AsyncHTTPClient quotes
    /// invalid header values verbatim in its errors).
    func redact(_ text: String) -> String {
        settings.secretHeaderValues.reduce(text) { $0.replacingOccurrences(of: $1, with: "<redacted>") }
    }
}
