import Foundation

/// A value guarded by a lock, for the small pieces of shared state the builder keeps
/// (semaphore queues, the in-flight map, progress counters; the CLI's progress printer).
///
/// `Synchronization.Mutex` would be the modern choice, but it needs macOS 15 and the
/// package still supports macOS 12; `NSLock` is available everywhere. Critical sections
/// must stay short and must never `await`: resume continuations *after* leaving the lock.
public final class Locked<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value

    public init(_ value: Value) {
        self.value = value
    }

    /// Runs `body` with exclusive access to the value and returns its result.
    public func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}
