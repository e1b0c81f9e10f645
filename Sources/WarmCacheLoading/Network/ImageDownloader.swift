import Foundation
import WarmCache

/// Downloads image bodies with a `URLSession`, HTTP caching included, and says what failed in
/// the loader's words.
///
/// ```swift
/// let downloader = ImageDownloader(session: ImageDownloader.makeSession())
/// let body = try await downloader.body(of: url)   // cancelling the task cancels the transfer
/// ```
struct ImageDownloader: Sendable {
    /// A downloaded body and the type the server declared for it.
    struct Body: Sendable {
        let data: Data
        let contentType: String?
    }

    let session: URLSession

    /// The body at `url`, over the session (and its URL cache).
    ///
    /// - Throws: ``ImageLoadingError`` for a status other than 2xx or a transport failure;
    ///   `CancellationError` when the calling task is cancelled (the transfer is cancelled too).
    func body(of url: URL) async throws -> Body {
        let transfer = Transfer()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Body, any Error>) in
                let task = session.dataTask(with: URLRequest(url: url)) { data, response, error in
                    continuation.resume(with: Self.outcome(url: url, data: data, response: response, error: error))
                }
                transfer.start(task)
            }
        } onCancel: {
            transfer.cancel()
        }
    }

    /// What one transfer's completion means.
    private static func outcome(url: URL, data: Data?, response: URLResponse?, error: (any Error)?) -> Result<Body, any Error> {
        if let error {
            if (error as? URLError)?.code == .cancelled { return .failure(CancellationError()) }
            return .failure(ImageLoadingError(url: url, reason: .unreachable(PlainReason.of(error))))
        }
        if let http = response as? HTTPURLResponse, !(200..<300).contains(http.statusCode) {
            return .failure(ImageLoadingError(url: url, reason: .httpStatus(http.statusCode)))
        }
        return .success(Body(data: data ?? Data(), contentType: response?.mimeType))
    }

    /// The session the loader makes for itself: the system's defaults and a disk cache of
    /// responses that follows HTTP's rules (`Cache-Control`, `ETag` revalidation), shared by every
    /// loader of the process. Its memory part is off: the decoded-image cache is the memory tier.
    /// (On Linux, FoundationNetworking's session was seen fetching a response with `max-age`
    /// again on the next request: rely on this cache on Apple platforms.)
    static func makeSession() -> URLSession {
        let configuration = URLSessionConfiguration.default
        configuration.urlCache = sharedURLCache
        configuration.requestCachePolicy = .useProtocolCachePolicy
        return URLSession(configuration: configuration)
    }

    /// 150 MB of responses on disk, in the caches folder's `WarmCacheLoading/<bundle id>` (the
    /// system may empty it when the device runs short of space). The app's identifier keeps apart
    /// the caches of Mac apps without the App Sandbox, which share one caches folder.
    static let sharedURLCache: URLCache = {
        let caches = FileManager.default.urls(for: .cachesDirectory, in: .userDomainMask).first
            ?? FileManager.default.temporaryDirectory
        let folder = caches.appendingPathComponent("WarmCacheLoading", isDirectory: true)
            .appendingPathComponent(Bundle.main.bundleIdentifier ?? ProcessInfo.processInfo.processName, isDirectory: true)
        return LibC.diskURLCache(capacity: 150 * 1024 * 1024, directory: folder)
    }()
}

/// The session task of one download, which cancellation may reach before it exists.
private final class Transfer: @unchecked Sendable {
    private let lock = NSLock()
    private var task: URLSessionDataTask?
    private var cancelled = false

    func start(_ task: URLSessionDataTask) {
        let cancelled = lock.withLock {
            self.task = task
            return self.cancelled
        }
        task.resume()
        if cancelled { task.cancel() }
    }

    func cancel() {
        lock.withLock {
            cancelled = true
            return task
        }?.cancel()
    }
}
