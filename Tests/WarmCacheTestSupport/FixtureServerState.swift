import Foundation
import NIOCore
import NIOHTTP1

/// The fixture server's shared bookkeeping: routes, recorded requests, connection and
/// concurrency counters. Touched by every connection's handler and by test code.
final class FixtureServerState: Sendable {
    /// Requests kept per path for `requests(for:)`; counts stay exact beyond it. Keeps a
    /// long benchmark run from growing memory without bound.
    static let recordLimit = 10_000

    private struct Storage {
        var routes: [String: FixtureRoute]
        var records: [String: [RecordedRequest]] = [:]
        var counts: [String: Int] = [:]
        var totalRequests = 0
        var connections = 0
        var openChannels: [ObjectIdentifier: Channel] = [:]
        var inFlight = 0
        var maxInFlight = 0
        var bodyBytesSent = 0
        var fullResponses: [String: Int] = [:]
        var date: Date?
    }

    /// A request the handler is about to answer: the matching route, if any, and the
    /// request's position among those to the same path (for `.sequence`).
    struct Ticket: Sendable {
        var route: FixtureRoute?
        var routePath: String
        var index: Int
        var request: ResponsePlan.Request
    }

    private let storage: Locked<Storage>

    init(routes: [String: FixtureRoute]) {
        storage = Locked(Storage(routes: routes))
    }

    // MARK: Clock

    /// The time the `Date` header states: the fixed one a test set, else the real clock.
    func now() -> Date {
        storage.withLock { $0.date } ?? Date()
    }

    func setDate(_ date: Date?) {
        storage.withLock { $0.date = date }
    }

    // MARK: Routes

    func setRoute(_ path: String, _ route: FixtureRoute?) {
        storage.withLock { $0.routes[path] = route }
    }

    /// The exact route for `path`, else the longest directory route that contains it.
    private static func match(_ path: String, in routes: [String: FixtureRoute]) -> (String, FixtureRoute)? {
        if let exact = routes[path] { return (path, exact) }
        let directories = routes.filter { key, route in
            if case .directory = route { return key.hasSuffix("/") && path.hasPrefix(key) }
            return false
        }
        return directories.max { $0.key.count < $1.key.count }.map { ($0.key, $0.value) }
    }

    // MARK: Requests

    /// Records a request head and marks it in flight until `requestEnded()`.
    func requestStarted(_ head: HTTPRequestHead, connection: Int) -> Ticket {
        let path = String(head.uri.prefix { $0 != "?" })
        let headers = head.headers.map { (name: $0.name, value: $0.value) }
        let record = RecordedRequest(
            method: head.method.rawValue, path: path, uri: head.uri, headers: headers,
            connection: connection, receivedAt: Date())
        return storage.withLock { storage in
            let index = storage.counts[path, default: 0]
            storage.counts[path] = index + 1
            storage.totalRequests += 1
            var records = storage.records.removeValue(forKey: path) ?? []
            records.append(record)
            if records.count > Self.recordLimit { records.removeFirst() }
            storage.records[path] = records
            storage.inFlight += 1
            storage.maxInFlight = max(storage.maxInFlight, storage.inFlight)
            let matched = Self.match(path, in: storage.routes)
            return Ticket(
                route: matched?.1, routePath: matched?.0 ?? path, index: index,
                request: ResponsePlan.Request(path: path, headers: headers))
        }
    }

    func requestEnded() {
        storage.withLock { $0.inFlight -= 1 }
    }

    func requestCount(for path: String) -> Int {
        storage.withLock { $0.counts[path, default: 0] }
    }

    func requests(for path: String) -> [RecordedRequest] {
        storage.withLock { $0.records[path, default: []] }
    }

    var totalRequests: Int { storage.withLock { $0.totalRequests } }

    /// Counts response body bytes written to the sockets.
    func bodySent(_ count: Int) {
        storage.withLock { $0.bodyBytesSent += count }
    }

    var bodyBytesSent: Int { storage.withLock { $0.bodyBytesSent } }

    /// Counts a `200` whose whole body left for the client.
    func fullResponseSent(for path: String) {
        storage.withLock { $0.fullResponses[path, default: 0] += 1 }
    }

    func fullResponseCount(for path: String) -> Int {
        storage.withLock { $0.fullResponses[path, default: 0] }
    }
    var maxInFlight: Int { storage.withLock { $0.maxInFlight } }

    /// Forgets recorded requests and counters (routes stay), between phases of a test.
    func resetStatistics() {
        storage.withLock { storage in
            storage.records = [:]
            storage.counts = [:]
            storage.totalRequests = 0
            storage.bodyBytesSent = 0
            storage.fullResponses = [:]
            storage.connections = 0
            storage.maxInFlight = storage.inFlight
        }
    }

    // MARK: Connections

    /// Registers an accepted connection and returns its number (1, 2, …).
    func connectionOpened(_ channel: Channel) -> Int {
        storage.withLock { storage in
            storage.connections += 1
            storage.openChannels[ObjectIdentifier(channel)] = channel
            return storage.connections
        }
    }

    func connectionClosed(_ channel: Channel) {
        _ = storage.withLock { $0.openChannels.removeValue(forKey: ObjectIdentifier(channel)) }
    }

    var connectionCount: Int { storage.withLock { $0.connections } }
    var openChannels: [Channel] { storage.withLock { Array($0.openChannels.values) } }
}
