import AsyncHTTPClient
import Foundation
import Logging
import NIOPosix
import NIOSSL

/// The HTTP clients of one fetcher: one for direct connections and one per proxy in use.
///
/// AsyncHTTPClient sets its proxy per client, so URLs that go through different proxies (or
/// none, by `NO_PROXY`) need different clients; each keeps its own connection pool.
struct HTTPClients: Sendable {
    private let direct: HTTPClient
    private let proxied: [ProxyServer: HTTPClient]
    private let routes: ProxyRoutes

    init(settings: FetchSettings, logger: Logger) {
        routes = settings.proxies
        func make(_ proxy: ProxyServer?) -> HTTPClient {
            var clientConfiguration = HTTPClient.Configuration(
                redirectConfiguration: .disallow,  // followed by hand: scheme rule and hop count
                timeout: .init(connect: .nanoseconds(Int64(settings.connectTimeout * 1e9))),
                connectionPool: .init(
                    idleTimeout: .seconds(60),
                    concurrentHTTP1ConnectionsPerHostSoftLimit: settings.perHost),
                decompression: .disabled)  // bytes on disk must be what the server sent
            clientConfiguration.httpVersion = .automatic
            // No request spans: nothing here reads them, and making them (with the no-op tracer
            // that is the default) was ~2 % of a re-warm's CPU.
            clientConfiguration.tracing.tracer = nil
            clientConfiguration.proxy = proxy.map { proxy in
                .server(host: proxy.host, port: proxy.port, authorization: proxy.username.map {
                    .basic(username: $0.unredactedValue, password: proxy.password?.unredactedValue ?? "")
                })
            }
            // A connection that cannot be made fails its requests at once. By default the pool
            // tries again with backoff until the connect timeout, so a refused connection (which
            // the kernel answers in a millisecond) took the whole timeout (5 s) to fail. The
            // fetcher decides instead (``ImageFetcher``): a host that has not answered in this run
            // is written off after one refusal; one that has is retried with the usual backoff.
            clientConfiguration.connectionPool.retryConnectionEstablishment = false
            // Extra certificate authorities are added to the system's, not put in their place: on
            // Apple platforms the system's verifier (SecTrust) still decides, with them as anchors.
            if let certificates = settings.extraCertificates {
                var tls = TLSConfiguration.makeClientConfiguration()
                tls.additionalTrustRoots = [.file(certificates)]
                clientConfiguration.tlsConfiguration = tls
            }
            return HTTPClient(
                eventLoopGroup: Self.eventLoop,
                configuration: clientConfiguration,
                backgroundActivityLogger: logger)
        }
        direct = make(nil)
        var proxied: [ProxyServer: HTTPClient] = [:]
        for proxy in [routes.http, routes.https].compactMap({ $0 }) where proxied[proxy] == nil {
            proxied[proxy] = make(proxy)
        }
        self.proxied = proxied
    }

    /// The one event loop thread all clients share, for the life of the process.
    ///
    /// One thread carries any number of connections: a fetcher waits on the network, and its
    /// work per response is small. A loop per core (AsyncHTTPClient's default group) gave a
    /// two-core machine four threads handing requests and responses to each other besides the
    /// imaging: a re-warm of 8,000 sources switched threads about 25,000 times; with one loop,
    /// about 18,000, and it took 4–7 % less CPU (interleaved runs).
    static let eventLoop: MultiThreadedEventLoopGroup = MultiThreadedEventLoopGroup(numberOfThreads: 1)

    /// The client for a request to `url`.
    func client(for url: URL) -> HTTPClient {
        routes.proxy(for: url).flatMap { proxied[$0] } ?? direct
    }

    /// Closes every connection of every client.
    func shutdown() async throws {
        var firstError: Error?
        for client in [direct] + proxied.values {
            // `client.shutdown()` is overloaded (async and future-returning); the future is unambiguous.
            do { try await client.shutdown().get() } catch { firstError = firstError ?? error }
        }
        if let firstError { throw firstError }
    }
}
