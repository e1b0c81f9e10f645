import Foundation

/// A small pool of read-only connections to one index, so concurrent readers do not queue
/// behind a single connection. Connections are opened lazily, up to `limit`; a caller that
/// finds none free past the limit waits for one.
final class ConnectionPool: @unchecked Sendable {
    private let path: String
    private let limit: Int
    private let condition = NSCondition()
    private var idle: [SQLiteConnection] = []
    private var openCount = 0

    /// Opens the first connection eagerly so that open errors surface at bundle open time.
    init(path: String, limit: Int, first: SQLiteConnection) {
        self.path = path
        self.limit = max(1, limit)
        self.idle = [first]
        self.openCount = 1
    }

    /// Runs `body` with a connection that no other thread uses meanwhile.
    func withConnection<T>(_ body: (SQLiteConnection) throws -> T) throws -> T {
        let connection = try checkOut()
        defer { checkIn(connection) }
        return try body(connection)
    }

    private func checkOut() throws -> SQLiteConnection {
        condition.lock()
        while idle.isEmpty && openCount >= limit {
            condition.wait()
        }
        if let connection = idle.popLast() {
            condition.unlock()
            return connection
        }
        openCount += 1
        condition.unlock()
        do {
            return try SQLiteConnection(path: path, readOnly: true)
        } catch {
            condition.lock()
            openCount -= 1
            condition.signal()
            condition.unlock()
            throw error
        }
    }

    private func checkIn(_ connection: SQLiteConnection) {
        condition.lock()
        idle.append(connection)
        condition.signal()
        condition.unlock()
    }
}
