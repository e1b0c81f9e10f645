import AsyncHTTPClient

extension Downloader {
    /// Translates an error from the HTTP stack (or the attempt's timer) into an
    /// ``AttemptFailure`` the retry loop understands; ``AttemptFailure`` and
    /// `CancellationError` pass through unchanged.
    ///
    /// AsyncHTTPClient reports its own timeouts as distinct `HTTPClientError` values; all
    /// of them become ``FetchError/Kind/timeout(seconds:)``. Anything else that went wrong
    /// on the wire (refused, reset, TLS, malformed HTTP) is a retryable connection error,
    /// described with any header value scrubbed out.
    func classify(_ error: Error) -> Error {
        switch error {
        case is AttemptFailure, is CancellationError:
            return error
        case is TimeLimitExceeded:
            return AttemptFailure(kind: .timeout(seconds: configuration.requestTimeout))
        case let error as HTTPClientError where error == .connectTimeout:
            return AttemptFailure(kind: .timeout(seconds: configuration.connectTimeout))
        case let error as HTTPClientError where Self.requestTimeouts.contains(error):
            return AttemptFailure(kind: .timeout(seconds: configuration.requestTimeout))
        default:
            if Task.isCancelled { return CancellationError() }
            return AttemptFailure(kind: .connection(redact(String(describing: error))))
        }
    }

    private static let requestTimeouts: [HTTPClientError] = [
        .deadlineExceeded, .readTimeout, .writeTimeout, .tlsHandshakeTimeout, .getConnectionFromPoolTimeout,
    ]
}
