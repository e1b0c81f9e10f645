import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix

/// A real HTTP/1.1 server on `127.0.0.1` (ephemeral port) for tests and benchmarks, so
/// downloads are exercised over actual sockets without touching the internet.
///
/// ```swift
/// let server = try await FixtureServer.start(routes: ["/a.png": .image(pngBytes, etag: "\"v1\"")])
/// defer { … }  // call `try await server.shutdown()` at the end of the test
/// let url = server.url("/a.png")
/// ```
///
/// Routes can be changed while the server runs (`setRoute`), e.g. to publish a new
/// version of an image between two builds. The server records every request (method,
/// path, headers, connection), counts connections (to check keep-alive reuse) and the
/// highest number of requests in flight at once (to check concurrency limits). Every response
/// carries a `Date` header, from the real clock unless a test sets one (`setDate`).
///
/// It depends on neither XCTest nor Swift Testing, and listens on loopback only.
public final class FixtureServer: Sendable {
    /// `http://127.0.0.1:<port>`.
    public let baseURL: URL
    private let channel: Channel
    private let state: FixtureServerState

    private init(channel: Channel, state: FixtureServerState, port: Int) {
        self.channel = channel
        self.state = state
        baseURL = URL(string: "http://127.0.0.1:\(port)")!
    }

    /// Starts a server with the given routes (path → behaviour).
    public static func start(routes: [String: FixtureRoute] = [:]) async throws -> FixtureServer {
        let state = FixtureServerState(routes: routes)
        let channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.backlog, value: 256)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                let number = state.connectionOpened(channel)
                channel.closeFuture.whenComplete { _ in state.connectionClosed(channel) }
                return channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.configureHTTPServerPipeline()
                    try channel.pipeline.syncOperations.addHandler(FixtureHTTPHandler(state: state, connection: number))
                }
            }
            .bind(host: "127.0.0.1", port: 0)
            .get()
        guard let port = channel.localAddress?.port else {
            try await channel.close()
            throw FixtureServerError.noPort
        }
        return FixtureServer(channel: channel, state: state, port: port)
    }

    /// The server's port.
    public var port: Int { baseURL.port ?? 0 }

    /// The absolute URL of `path` (which should start with `/`; a query is allowed).
    public func url(_ path: String) -> URL {
        URL(string: baseURL.absoluteString + path)!
    }

    /// Adds or replaces the route for `path`; takes effect for the next request.
    public func setRoute(_ path: String, _ route: FixtureRoute) {
        state.setRoute(path, route)
    }

    /// Makes every response's `Date` header state `date` (`nil`: the real clock again), e.g. to
    /// answer within the second a file was modified.
    public func setDate(_ date: Date?) {
        state.setDate(date)
    }

    /// Removes the route for `path`; requests to it then get `404`.
    public func removeRoute(_ path: String) {
        state.setRoute(path, nil)
    }

    /// How many requests arrived for `path` (query ignored).
    public func requestCount(for path: String) -> Int {
        state.requestCount(for: path)
    }

    /// The requests that arrived for `path`, oldest first (the latest 10,000 are kept).
    public func requests(for path: String) -> [RecordedRequest] {
        state.requests(for: path)
    }

    /// How many `200` responses to `path` (query ignored) were sent whole: bodies a client
    /// received in full, as opposed to requests answered `304` or cut off.
    public func fullResponseCount(for path: String) -> Int {
        state.fullResponseCount(for: path)
    }

    /// Requests received on all paths.
    public var totalRequestCount: Int { state.totalRequests }

    /// Response body bytes sent on all paths (headers not counted): what a transfer cost.
    public var bodyBytesSent: Int { state.bodyBytesSent }

    /// Connections accepted so far: fewer connections than requests means keep-alive reuse.
    public var connectionCount: Int { state.connectionCount }

    /// The most requests that were being answered at the same moment.
    public var maxConcurrentRequests: Int { state.maxInFlight }

    /// Clears recorded requests and counters; routes stay.
    public func resetStatistics() {
        state.resetStatistics()
    }

    /// Stops listening and closes every open connection.
    public func shutdown() async throws {
        try await channel.close()
        for child in state.openChannels {
            try? await child.close()  // may already be closing on its own
        }
    }
}

/// Failures starting the fixture server.
public enum FixtureServerError: Error {
    /// The listening socket reported no port.
    case noPort
}
