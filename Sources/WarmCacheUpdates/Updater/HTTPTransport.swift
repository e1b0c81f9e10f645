import Foundation
import WarmCache
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The outcome of one GET.
struct TransferResponse: Sendable {
    var status: Int
    /// Response headers, names lowercased.
    var headers: [String: String]
    /// Body bytes received (written to the destination when the status was 200).
    var byteCount: Int64
    /// Lowercase hex SHA-256 of the body (status 200 only).
    var sha256: String?

    func header(_ name: String) -> String? { headers[name.lowercased()] }
}

/// The moment a whole transfer must be done by, however steadily data arrives (the idle timeout
/// alone lets a server that sends a byte now and then hold a request open for ever).
struct TransferDeadline: Sendable {
    var date: Date
    /// The limit as the message states it.
    var seconds: Int

    init(in seconds: TimeInterval, from start: Date = Date()) {
        let seconds = seconds.isNaN ? 0 : min(max(seconds, 0), 1e9)  // an "unlimited" setting is ~31 years
        date = start.addingTimeInterval(seconds)
        self.seconds = Int(seconds.rounded(.up))
    }

    /// The earlier of two deadlines.
    static func earliest(_ a: TransferDeadline, _ b: TransferDeadline) -> TransferDeadline {
        a.date <= b.date ? a : b
    }
}

/// GETs over one `URLSession` with the rules an updater needs: bodies streamed to a file while
/// they are hashed, a byte limit enforced as bytes arrive (and up front from `Content-Length`),
/// redirects followed only within one origin, an idle timeout, an optional deadline for the whole
/// transfer, and Swift task cancellation.
///
/// `URLSession` is Foundation's client: part of the OS on Apple platforms, `FoundationNetworking`
/// (libcurl) on Linux, so the updater adds no HTTP stack to an app.
final class HTTPTransport: @unchecked Sendable {  // URLSession is thread-safe
    private let session: URLSession
    private let delegate: TransferDelegate
    private let queue: OperationQueue
    let timeout: TimeInterval

    /// - Parameters:
    ///   - origin: redirects are followed only to this URL's scheme, host and port.
    ///   - connections: most connections to the host at once.
    init(origin: URL, timeout: TimeInterval, connections: Int) {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = timeout
        configuration.httpMaximumConnectionsPerHost = max(1, connections)
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        configuration.urlCache = nil
        configuration.httpCookieStorage = nil
        delegate = TransferDelegate(origin: origin)
        queue = OperationQueue()
        queue.maxConcurrentOperationCount = 1
        session = URLSession(configuration: configuration, delegate: delegate, delegateQueue: queue)
        self.timeout = timeout
    }

    /// The `User-Agent` of every request: the library and its version (Foundation's default on
    /// Linux names the process and "(unknown version)").
    static let userAgent = "WarmCache/\(WarmCacheVersion.current)"

    /// Lets the session go once every transfer has finished.
    func close() {
        session.finishTasksAndInvalidate()
    }

    /// GETs `url`. A `200` body goes to `destination` (created or truncated), at most `limit`
    /// bytes; other statuses are returned with their body discarded.
    /// - Throws: ``BundleUpdateError`` (`tooLarge`, `truncated`, `redirectRefused`, `timedOut`,
    ///   `tooSlow` past `deadline`, `network`, `fileSystem`) or `CancellationError`.
    func get(_ url: URL, headers: [String: String] = [:], limit: Int64, destination: URL,
             deadline: TransferDeadline? = nil) async throws -> TransferResponse
    {
        try Task.checkCancellation()
        var request = URLRequest(url: url, cachePolicy: .reloadIgnoringLocalCacheData, timeoutInterval: timeout)
        request.setValue(Self.userAgent, forHTTPHeaderField: "User-Agent")
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        let task = TaskBox(session.dataTask(with: request))
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                let identifier = task.task.taskIdentifier
                let timer = deadline.map { expiry(of: identifier, task: task, at: $0) }
                delegate.register(identifier, Transfer(url: url, limit: limit, destination: destination,
                                                       deadlineTimer: timer, continuation: continuation))
                guard task.start() else {
                    // Cancelled before it started: a task never resumed reports no completion.
                    timer?.cancel()
                    delegate.unregister(identifier)?.continuation.resume(throwing: CancellationError())
                    return
                }
            }
        } onCancel: {
            task.cancel()
        }
    }
}

extension HTTPTransport {
    /// A running timer that fails the transfer `identifier` at `deadline` (on the delegate queue);
    /// the transfer cancels it when it completes, which releases it at once.
    private func expiry(of identifier: Int, task: TaskBox, at deadline: TransferDeadline) -> DispatchSourceTimer {
        let timer = DispatchSource.makeTimerSource(queue: .global())
        timer.schedule(deadline: .now() + max(0, deadline.date.timeIntervalSinceNow))
        let (delegate, queue) = (delegate, queue)
        timer.setEventHandler {
            queue.addOperation { delegate.expire(identifier, task: task, seconds: deadline.seconds) }
        }
        timer.resume()
        return timer
    }
}

/// Starts or cancels a data task exactly once whichever comes first, so a cancellation that
/// arrives before the start is never lost. `URLSessionTask` is not `Sendable` on every
/// platform; the box carries it into the cancellation handler.
final class TaskBox: @unchecked Sendable {
    let task: URLSessionDataTask
    private let lock = NSLock()
    private var cancelled = false
    private var started = false

    init(_ task: URLSessionDataTask) { self.task = task }

    /// Resumes the task; `false` if it was cancelled first.
    func start() -> Bool {
        lock.withLock {
            guard !cancelled else { return false }
            started = true
            task.resume()
            return true
        }
    }

    func cancel() {
        lock.withLock {
            cancelled = true
            if started { task.cancel() }
        }
    }
}

/// The state of one GET, touched only on the session's serial delegate queue.
private final class Transfer {
    let url: URL
    let limit: Int64
    let destination: URL
    let continuation: CheckedContinuation<TransferResponse, Error>
    var response = TransferResponse(status: 0, headers: [:], byteCount: 0)
    var expectedLength: Int64 = -1
    var file: FileHandle?
    var hasher = SHA256()
    var failure: Error?
    var refusedRedirect: URL?
    /// Fails the transfer at its deadline, if it has one (``TransferDeadline``).
    let deadlineTimer: DispatchSourceTimer?

    init(url: URL, limit: Int64, destination: URL, deadlineTimer: DispatchSourceTimer?,
         continuation: CheckedContinuation<TransferResponse, Error>) {
        self.url = url
        self.limit = limit
        self.destination = destination
        self.deadlineTimer = deadlineTimer
        self.continuation = continuation
    }

    func fail(_ kind: BundleUpdateError.Kind, _ detail: String = "") {
        if failure == nil { failure = BundleUpdateError(kind, url: url, detail: detail) }
    }

    /// Fails the transfer on a local file error: named by the local file, not the URL.
    func failWriting(_ error: Error, _ action: String) {
        guard failure == nil else { return }
        let file = URL(fileURLWithPath: destination.path)
        failure = DiskSpace.isExhausted(by: error)
            ? BundleUpdateError(.outOfSpace(needed: nil), url: file)
            : BundleUpdateError(.fileSystem, url: file, detail: "\(action) it: \(PlainReason.of(error))")
    }
}

/// The session's delegate: routes callbacks to each task's ``Transfer``.
private final class TransferDelegate: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    private let origin: URL
    private let lock = NSLock()
    private var transfers: [Int: Transfer] = [:]

    init(origin: URL) {
        self.origin = origin
    }

    func register(_ identifier: Int, _ transfer: Transfer) {
        lock.withLock { transfers[identifier] = transfer }
    }

    func unregister(_ identifier: Int) -> Transfer? {
        lock.withLock { transfers.removeValue(forKey: identifier) }
    }

    private func transfer(_ task: URLSessionTask) -> Transfer? {
        lock.withLock { transfers[task.taskIdentifier] }
    }

    /// Fails a transfer still running at its deadline. Runs on the delegate queue, like every
    /// callback that touches a ``Transfer``.
    func expire(_ identifier: Int, task: TaskBox, seconds: Int) {
        guard let transfer = lock.withLock({ transfers[identifier] }) else { return }
        transfer.fail(.tooSlow(seconds: seconds), "")
        task.cancel()
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
                    completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void) {
        guard let transfer = transfer(dataTask), let http = response as? HTTPURLResponse else {
            completionHandler(.cancel)
            return
        }
        transfer.response.status = http.statusCode
        for (name, value) in http.allHeaderFields {
            if let name = name as? String, let value = value as? String {
                transfer.response.headers[name.lowercased()] = value
            }
        }
        transfer.expectedLength = http.expectedContentLength
        guard http.statusCode == 200 else {
            completionHandler(.allow)
            return
        }
        if http.expectedContentLength > Int64(transfer.limit) {
            transfer.fail(.tooLarge(limit: transfer.limit), "Content-Length \(http.expectedContentLength)")
            completionHandler(.cancel)
            return
        }
        do {
            try FileManager.default.createDirectory(at: transfer.destination.deletingLastPathComponent(),
                                                    withIntermediateDirectories: true)
            guard FileManager.default.createFile(atPath: transfer.destination.path, contents: nil) else {
                throw CocoaError(.fileWriteUnknown)
            }
            transfer.file = try FileHandle(forWritingTo: transfer.destination)
            completionHandler(.allow)
        } catch {
            transfer.failWriting(error, "creating")
            completionHandler(.cancel)
        }
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        guard let transfer = transfer(dataTask), transfer.failure == nil else { return }
        transfer.response.byteCount += Int64(data.count)
        // Any body is bounded, an error page's too (it is only read for its status).
        let limit = transfer.response.status == 200 ? transfer.limit : max(transfer.limit, 1 << 16)
        guard transfer.response.byteCount <= limit else {
            transfer.fail(.tooLarge(limit: transfer.limit), "more than \(transfer.limit) bytes arrived")
            dataTask.cancel()
            return
        }
        guard transfer.response.status == 200 else { return }
        transfer.hasher.update(data: data)
        do {
            try transfer.file?.write(contentsOf: data)
        } catch {
            transfer.failWriting(error, "writing")
            dataTask.cancel()
        }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
                    newRequest request: URLRequest,
                    completionHandler: @escaping @Sendable (URLRequest?) -> Void) {
        guard let target = request.url, Self.sameOrigin(target, origin) else {
            if let transfer = transfer(task) {
                transfer.refusedRedirect = request.url
                transfer.fail(.redirectRefused(to: request.url?.absoluteString ?? "?"))
            }
            completionHandler(nil)
            task.cancel()
            return
        }
        completionHandler(request)
    }

    /// A failed connection in plain words: on Linux the error's own text is curl's
    /// ("Failed to connect to 127.0.0.1 port 8799 after 0 ms: …").
    static func reason(_ code: URLError.Code) -> String {
        switch code {
        case .cannotConnectToHost: "the server refused the connection: nothing answers at that host and port"
        case .cannotFindHost, .dnsLookupFailed: "the host name is not known: check its spelling"
        case .notConnectedToInternet: "this machine is not connected to a network"
        case .networkConnectionLost: "the connection was lost"
        case .secureConnectionFailed, .serverCertificateUntrusted, .serverCertificateHasBadDate,
             .serverCertificateNotYetValid, .serverCertificateHasUnknownRoot, .clientCertificateRejected:
            "the TLS connection failed: the server's certificate is not trusted here"
        default: "the connection failed"
        }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: Error?) {
        guard let transfer = lock.withLock({ transfers.removeValue(forKey: task.taskIdentifier) }) else { return }
        transfer.deadlineTimer?.cancel()
        // On the medium before anything is renamed into place (the index's full flush at the end
        // of an update then empties the drive's cache of these too).
        try? transfer.file?.synchronize()
        try? transfer.file?.close()
        transfer.file = nil
        let received = transfer.response.byteCount
        if let failure = transfer.failure {
            transfer.continuation.resume(throwing: failure)
        } else if let error {
            // Optional on purpose: `URLError.Code(rawValue:)` can fail on Linux, not on Apple platforms.
            let code: URLError.Code? = (error as? URLError)?.code ?? URLError.Code(rawValue: (error as NSError).code)
            if code == .cancelled {
                transfer.continuation.resume(throwing: CancellationError())
            } else if transfer.response.status == 200, transfer.expectedLength > received {
                transfer.continuation.resume(throwing: BundleUpdateError(
                    .truncated(expected: transfer.expectedLength, received: received), url: transfer.url))
            } else if code?.rawValue == -1022 {  // App Transport Security refused plain http
                transfer.continuation.resume(throwing: BundleUpdateError(.insecureURL, url: transfer.url,
                    detail: "App Transport Security blocks plain http in this app: allow the host in Info.plist "
                        + "(NSAppTransportSecurity, NSExceptionDomains) or serve it over https"))
            } else if code == .timedOut {
                transfer.continuation.resume(throwing: BundleUpdateError(.timedOut, url: transfer.url))
            } else {
                transfer.continuation.resume(throwing: BundleUpdateError(.network, url: transfer.url,
                                                                         detail: code.map(Self.reason) ?? "the connection failed"))
            }
        } else if transfer.response.status == 200, transfer.expectedLength >= 0,
                  transfer.expectedLength != received {
            transfer.continuation.resume(throwing: BundleUpdateError(
                .truncated(expected: transfer.expectedLength, received: received), url: transfer.url))
        } else {
            var response = transfer.response
            if response.status == 200 {
                response.sha256 = transfer.hasher.finalize().map { String(format: "%02x", $0) }.joined()
            }
            transfer.continuation.resume(returning: response)
        }
    }

    /// Same scheme, host and port (default ports made explicit).
    static func sameOrigin(_ a: URL, _ b: URL) -> Bool {
        func port(_ url: URL) -> Int? { url.port ?? (url.scheme?.lowercased() == "https" ? 443 : 80) }
        return a.scheme?.lowercased() == b.scheme?.lowercased() && a.host?.lowercased() == b.host?.lowercased()
            && port(a) == port(b)
    }
}
