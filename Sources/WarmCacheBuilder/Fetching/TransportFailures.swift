import AsyncHTTPClient
import Foundation
import NIOCore
import NIOPosix
import WarmCache

extension Downloader {
    /// Translates an error from the HTTP stack (or the attempt's timer) into an
    /// ``AttemptFailure`` the retry loop understands; ``AttemptFailure`` and
    /// `CancellationError` pass through unchanged.
    ///
    /// - A connection that could not be made (refused, unknown host, no route) is
    ///   ``FetchError/Kind/cannotConnect(host:reason:)``, remembered for a host not yet reached; no
    ///   answer within the connect timeout is ``FetchError/Kind/connectTimeout(host:seconds:)``.
    /// - AsyncHTTPClient's other timeouts become ``FetchError/Kind/timeout(seconds:)``.
    /// - A proxy's refusal is ``FetchError/Kind/proxy(_:)``.
    /// - Anything else that went wrong on the wire (reset, TLS, malformed HTTP) is a retryable
    ///   connection error, described with any header value scrubbed out.
    func classify(_ error: Error, url: URL) -> Error {
        let proxy = settings.proxies.proxy(for: url)
        let target = describedTarget(url)
        switch error {
        case is AttemptFailure, is CancellationError:
            return error
        case is TimeLimitExceeded:
            return AttemptFailure(kind: .timeout(seconds: settings.requestTimeout))
        case let error as HTTPClientError where error == .connectTimeout:
            return AttemptFailure(kind: .connectTimeout(host: target, seconds: settings.connectTimeout))
        case let error as HTTPClientError where error == .proxyAuthenticationRequired:
            return AttemptFailure(kind: .proxy(
                "\(proxy.map { "\($0)" } ?? "the proxy") answered 407 Proxy Authentication Required; "
                    + "put the right user and password in the proxy URL (http://user:password@host:port)"))
        case let error as HTTPClientError where error == .invalidProxyResponse:
            return AttemptFailure(kind: .proxy(
                "\(proxy.map { "\($0)" } ?? "the proxy") refused to open a tunnel (CONNECT) to \(URLRules.hostKey(of: url)); "
                    + "check the user and password in the proxy URL (some proxies answer 401 instead of 407), "
                    + "and that the proxy allows CONNECT to that port"))
        case let error as HTTPClientError where Self.requestTimeouts.contains(error):
            return AttemptFailure(kind: .timeout(seconds: settings.requestTimeout))
        default:
            if Task.isCancelled { return CancellationError() }
            if let reason = Self.connectFailure(error) {
                return AttemptFailure(kind: .cannotConnect(host: target, reason: reason))
            }
            return AttemptFailure(kind: .connection(redact(Self.plainReason(error))))
        }
    }

    /// ``classify(_:url:)`` for a request that failed before its response head arrived: a
    /// timeout there, from a host that has not answered in this run, means it took the
    /// connection (a refused or unanswered connect fails otherwise) and never responded,
    /// ``FetchError/Kind/noResponse(host:seconds:)``, and the host is written off.
    func classifyHeadFailure(_ error: Error, url: URL, hostKey: String) -> Error {
        let classified = classify(error, url: url)
        guard let failure = classified as? AttemptFailure, case .timeout = failure.kind,
              !reached.withLock({ $0.contains(hostKey) }) else {
            return classified
        }
        return AttemptFailure(kind: .noResponse(host: describedTarget(url), seconds: settings.requestTimeout))
    }

    /// `host:port`, or the proxy when the download goes through one (what a failure names).
    private func describedTarget(_ url: URL) -> String {
        settings.proxies.proxy(for: url).map { "the proxy \($0)" } ?? URLRules.hostKey(of: url)
    }

    private static let requestTimeouts: [HTTPClientError] = [
        .deadlineExceeded, .readTimeout, .writeTimeout, .tlsHandshakeTimeout, .getConnectionFromPoolTimeout,
    ]

    /// What went wrong on the wire, in plain words: never the HTTP stack's type or case names
    /// (`HTTPClientError.remoteConnectionClosed`, `IOError`, ...).
    static func plainReason(_ error: Error) -> String {
        if let error = error as? HTTPClientError {
            switch error {
            case .remoteConnectionClosed, .uncleanShutdown:
                return "the server closed the connection before the response was complete"
            case .bodyLengthMismatch:
                return "the response's length did not match its Content-Length header"
            case .connectTimeout, .httpProxyHandshakeTimeout:
                return "the connection could not be made in time"
            case .readTimeout, .deadlineExceeded, .writeTimeout, .tlsHandshakeTimeout, .getConnectionFromPoolTimeout:
                return "the server did not answer in time"
            case .cancelled:
                return "the request was cancelled"
            case .invalidProxyResponse, .proxyAuthenticationRequired:
                return "the proxy refused the request"
            default:
                return "the HTTP exchange failed (the server's answer was not valid HTTP)"
            }
        }
        if let error = error as? IOError {
            return String(cString: strerror(error.errnoCode))
        }
        if let reason = connectFailure(error) {
            return reason
        }
        if String(reflecting: type(of: error)).contains("SSL") {
            return "the secure (TLS) connection failed; check that the server's certificate is valid for its host"
        }
        if error is ChannelError {
            return "the connection failed"
        }
        return PlainReason.of(error)
    }

    /// Why no connection could be made, in plain words, or `nil` if `error` is not about
    /// making a connection.
    static func connectFailure(_ error: Error) -> String? {
        switch error {
        case let error as NIOConnectionError:
            if error.connectionErrors.isEmpty, error.dnsAError != nil || error.dnsAAAAError != nil {
                return "the host name could not be resolved (DNS)"
            }
            return error.connectionErrors.lazy.compactMap { connectFailure($0.error) }.first
                ?? "the connection could not be made"
        case let error as IOError:
            switch error.errnoCode {
            case ECONNREFUSED: return "connection refused (nothing listens on that port)"
            case EHOSTUNREACH, ENETUNREACH: return "the host is unreachable from this machine"
            default: return nil
            }
        default:
            return nil
        }
    }
}
