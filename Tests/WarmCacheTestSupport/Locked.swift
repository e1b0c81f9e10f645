import Foundation

/// A value guarded by a lock, for the server's bookkeeping, which is touched from the
/// event loops and from test code. (`Mutex` would need macOS 15; the package supports 12.)
final class Locked<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value

    init(_ value: Value) {
        self.value = value
    }

    func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}
