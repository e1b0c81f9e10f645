import Foundation
import NIOHTTP1
import WarmCache

/// Why a download failed, with enough context to act on it: which URL, what went wrong,
/// and how many attempts were made.
///
/// Messages name the URL exactly as the manifest gave it and never include request
/// header values (tokens in `FetchSettings.headers` stay secret even when an
/// underlying library error would have quoted them).
public struct FetchError: Error, Sendable, CustomStringConvertible {
    /// The failure itself.
    public enum Kind: Sendable, Equatable {
        /// The server answered with a status that is not an image (after any retries).
        case httpStatus(Int)
        /// The body is larger than `maxBytes`; `declared` is the `Content-Length` when the
        /// response was rejected before reading it.
        case tooLarge(limit: Int, declared: Int?)
        /// The connection ended before the declared `Content-Length` arrived.
        case truncated(expected: Int, received: Int)
        /// The body is not an image: `sniffed` describes it ("HTML page", "JSON document").
        case notAnImage(sniffed: String, contentType: String?)
        /// The attempt did not complete within the deadline (seconds).
        case timeout(seconds: TimeInterval)
        /// The connection broke (reset, TLS failure, malformed HTTP) after it was made; the
        /// text comes from the HTTP stack.
        case connection(String)
        /// No connection could be made: refused, host unknown, or no route to it. `host` is
        /// `host:port` (or the proxy). It fails as soon as the connection does (a refusal in
        /// milliseconds). Final for a host that has not answered earlier in the run (its later
        /// downloads then fail at once with the same reason); retried for one that has.
        case cannotConnect(host: String, reason: String)
        /// No answer within the connect timeout. Final for a host that has not answered earlier in
        /// the run (its later downloads then fail at once with the same reason); retried for one
        /// that has (a slow moment of a host known to be up).
        case connectTimeout(host: String, seconds: TimeInterval)
        /// The host accepted the connection but sent no response within the request timeout, and
        /// has not answered earlier in the run (a hung server, or a firewall that accepts and
        /// drops). Written off like a host that cannot be reached: final, and its later downloads
        /// in the run fail at once with the same reason.
        case noResponse(host: String, seconds: TimeInterval)
        /// The proxy refused the request (`407`: missing or wrong credentials) or could not be used.
        case proxy(String)
        /// More than `limit` redirects, or a redirect back to a URL already visited.
        case tooManyRedirects(limit: Int, loop: Bool)
        /// A redirect pointed to a scheme other than http/https (`ftp`, `file`, ...).
        case forbiddenRedirect(scheme: String, location: String)
        /// A redirect without a usable `Location` header.
        case invalidRedirect(location: String?)
        /// Only `http` and `https` URLs are fetched (local files are read elsewhere).
        case unsupportedScheme(String)
        /// Writing the file failed (disk full, permissions, missing volume).
        case fileSystem(String)
        /// A configured request header has an invalid name or value (its value is not shown).
        case invalidHeader(name: String)
        /// The fetcher was shut down before this download finished.
        case shutDown

        /// Whether another attempt might succeed later: a network failure or an overloaded
        /// server, not a wrong answer. A cached original may then stand in (stale-if-error).
        var isTransient: Bool {
            switch self {
            case .httpStatus(let code): return code == 408 || code == 429 || (500...599).contains(code)
            case .truncated, .timeout, .connection, .cannotConnect, .connectTimeout, .noResponse: return true
            case .proxy, .tooLarge, .notAnImage, .tooManyRedirects, .forbiddenRedirect, .invalidRedirect,
                 .unsupportedScheme, .fileSystem, .invalidHeader, .shutDown:
                return false
            }
        }

        /// Whether the retry loop may try again after this failure: transient ones. A host that
        /// cannot be reached and has not answered in this run is written off instead (see
        /// ``meansHostUnreachable``): retrying it would only multiply the wait.
        var isRetried: Bool {
            isTransient
        }

        /// Whether the host could not be reached (refused, no route, no DNS name, no answer within
        /// the connect timeout) or never responded on a connection it accepted. A host that has not
        /// answered earlier in the run is then written off: this download is not retried and the
        /// host's others fail at once.
        var meansHostUnreachable: Bool {
            switch self {
            case .cannotConnect, .connectTimeout, .noResponse: return true
            default: return false
            }
        }
    }

    /// The URL that was requested (before redirects).
    public var url: URL
    /// What went wrong on the last attempt.
    public var kind: Kind
    /// Attempts made, including the failed last one (0 if none was started).
    public var attempts: Int
    /// Body bytes received by all attempts before they failed: downloaded, though nothing was kept.
    public var bytesReceived: Int

    public init(url: URL, kind: Kind, attempts: Int, bytesReceived: Int = 0) {
        self.url = url
        self.kind = kind
        self.attempts = attempts
        self.bytesReceived = bytesReceived
    }

    public var description: String {
        "cannot download \(url.absoluteString): \(summary)"
    }

    /// What went wrong and what to do, without the URL (for lines that already name it).
    public var summary: String {
        var text = reason
        if attempts > 1 { text += " (gave up after \(attempts) attempts)" }
        if let advice { text += ". " + advice }
        return text
    }

    /// What happened, in a few words.
    private var reason: String {
        switch kind {
        case .httpStatus(let code):
            let phrase = HTTPResponseStatus(statusCode: code).reasonPhrase
            return "the server answered HTTP \(code) \(phrase)"
        case .tooLarge(let limit, let declared?):
            return "the image is \(Self.bytes(declared)), over the \(Self.bytes(limit)) limit (Content-Length)"
        case .tooLarge(let limit, nil):
            return "the image is larger than the \(Self.bytes(limit)) limit"
        case .truncated(let expected, let received):
            return "the connection ended after \(received) of \(expected) bytes"
        case .notAnImage(let sniffed, let contentType?) where contentType.lowercased().hasPrefix("image/"):
            return "the server returned \(Self.withArticle(sniffed)), not an image, although it labelled it \(contentType)"
        case .notAnImage(let sniffed, let contentType):
            let declared = contentType.map { " (Content-Type \($0))" } ?? " (no Content-Type)"
            return "the server returned \(Self.withArticle(sniffed)), not an image\(declared)"
        case .timeout(let seconds):
            return "timed out after \(Self.seconds(seconds))"
        case .connection(let detail):
            return "the connection broke: \(detail)"
        case .cannotConnect(let host, let reason):
            return "cannot connect to \(host): \(reason)"
        case .connectTimeout(let host, let seconds):
            return "cannot connect to \(host): no answer within \(Self.seconds(seconds)) (fetch.connect_timeout)"
        case .noResponse(let host, let seconds):
            return "\(host) accepted the connection but sent no response within \(Self.seconds(seconds)) (fetch.timeout)"
        case .proxy(let detail):
            return "the proxy failed: \(detail)"
        case .tooManyRedirects(let limit, let loop):
            return loop ? "redirect loop detected" : "more than \(limit) redirects"
        case .forbiddenRedirect(let scheme, let location):
            return "the server redirected to a \(scheme): URL (\(location)); only http and https redirects are followed"
        case .invalidRedirect(let location?):
            return "the server redirected to an invalid location \"\(location)\""
        case .invalidRedirect(nil):
            return "the server sent a redirect without a Location header"
        case .unsupportedScheme(let scheme):
            return "only http and https URLs can be downloaded, not \"\(scheme)\""
        case .fileSystem(let detail):
            return "could not write the file: \(detail)"
        case .invalidHeader(let name):
            return "the configured header \"\(name)\" has an invalid name or value (control characters and line breaks are not allowed)"
        case .shutDown:
            return "the fetcher was shut down"
        }
    }

    /// A hint on what to do about it, when there is a useful one.
    private var advice: String? {
        switch kind {
        case .httpStatus(let code) where code == 401 || code == 403:
            return "Check the URL, or add the credentials the server needs to the fetch headers"
        case .httpStatus(let code) where code == 404 || code == 410:
            return "Check the URL in the manifest"
        case .tooLarge:
            return "Raise the fetch byte limit if such large originals are expected"
        case .notAnImage:
            return "The URL probably points to a web page or an error page; use the image's direct URL"
        case .timeout:
            return "The server is slow; raise fetch.timeout if it is just slow"
        case .cannotConnect, .connectTimeout:
            return "Check the host name and that the server is up (and any proxy settings)"
        case .noResponse:
            return "Check that the server is answering (a hung server, or a firewall that accepts and drops "
                + "connections); its later downloads in this run fail at once. Raise fetch.timeout if it is "
                + "only slow to start answering"
        case .tooManyRedirects:
            return "Use the final URL in the manifest"
        default:
            return nil
        }
    }

    /// "an HTML page", "a JSON document", "an empty body". Acronyms take the article of
    /// their first letter's name (H is "aitch", X is "ex").
    private static func withArticle(_ noun: String) -> String {
        guard let first = noun.first else { return noun }
        let firstWord = noun.prefix(while: { $0 != " " })
        let isAcronym = firstWord.count > 1 && firstWord.allSatisfy(\.isUppercase)
        let vowelSound = isAcronym ? "AEFHILMNORSX".contains(first) : "aeiouAEIOU".contains(first)
        return (vowelSound ? "an " : "a ") + noun
    }

    /// "512 B", "97.7 KB", "50.0 MB": decimal units, as every byte count is written.
    private static func bytes(_ count: Int) -> String {
        ByteCountText.format(count)
    }

    private static func seconds(_ value: TimeInterval) -> String {
        value == value.rounded() ? "\(Int(value)) s" : String(format: "%.2g s", value)
    }
}

extension FetchError: LocalizedError {
    /// The same text as ``description``, so `localizedDescription` is useful too.
    public var errorDescription: String? { description }
}
