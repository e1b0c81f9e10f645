import Foundation

/// Work done once for everyone who asks for the same key at the same time: the loader's
/// coalescing of identical downloads and decodes.
///
/// The first caller of ``value(for:_:)`` for a key starts the work in a task of its own; later
/// callers for the key wait for the same result. A caller whose task is cancelled stops waiting
/// at once (it gets `CancellationError`) and the others keep waiting; when the last one leaves,
/// the work's task is cancelled and forgotten, so a new caller starts afresh.
///
/// ```swift
/// let downloads = SharedWork<URL, Data>()
/// let body = try await downloads.value(for: url) { try await fetch(url) }
/// ```
final class SharedWork<Key: Hashable & Sendable, Value: Sendable>: @unchecked Sendable {
    /// One key's work in flight and the callers waiting for it. Guarded by the owner's lock.
    private final class Operation: @unchecked Sendable {
        var task: Task<Void, Never>?
        var waiters: [UInt64: CheckedContinuation<Value, any Error>] = [:]
    }

    private let lock = NSLock()
    private var operations: [Key: Operation] = [:]
    private var nextWaiter: UInt64 = 0

    /// The value of `work` for `key`, shared with every caller waiting for the same key.
    ///
    /// - Throws: what `work` throws, or `CancellationError` when the calling task is cancelled.
    func value(for key: Key, _ work: @escaping @Sendable () async throws -> Value) async throws -> Value {
        let waiter = lock.withLock { () -> UInt64 in
            nextWaiter &+= 1
            return nextWaiter
        }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                join(key, waiter: waiter, continuation: continuation, work: work)
            }
        } onCancel: {
            leave(key, waiter: waiter)
        }
    }

    /// How many callers wait for `key` now (0 when nothing is in flight for it).
    func waiterCount(for key: Key) -> Int {
        lock.withLock { operations[key]?.waiters.count ?? 0 }
    }

    /// The task doing the work for `key` now, if any: for tests that check it was cancelled.
    func task(for key: Key) -> Task<Void, Never>? {
        lock.withLock { operations[key]?.task }
    }

    private func join(_ key: Key, waiter: UInt64, continuation: CheckedContinuation<Value, any Error>,
                      work: @escaping @Sendable () async throws -> Value) {
        lock.lock()
        // Cancelled before joining: `leave` already ran and found nothing to remove.
        guard !Task.isCancelled else {
            lock.unlock()
            return continuation.resume(throwing: CancellationError())
        }
        if let operation = operations[key] {
            operation.waiters[waiter] = continuation
            return lock.unlock()
        }
        let operation = Operation()
        operation.waiters[waiter] = continuation
        operations[key] = operation
        operation.task = Task {
            let result: Result<Value, any Error>
            do { result = .success(try await work()) } catch { result = .failure(error) }
            self.finish(key, operation, with: result)
        }
        lock.unlock()
    }

    private func leave(_ key: Key, waiter: UInt64) {
        lock.lock()
        guard let operation = operations[key], let continuation = operation.waiters.removeValue(forKey: waiter) else {
            return lock.unlock()
        }
        if operation.waiters.isEmpty {
            operations[key] = nil
            operation.task?.cancel()
        }
        lock.unlock()
        continuation.resume(throwing: CancellationError())
    }

    private func finish(_ key: Key, _ operation: Operation, with result: Result<Value, any Error>) {
        let waiters = lock.withLock { () -> [CheckedContinuation<Value, any Error>] in
            if operations[key] === operation { operations[key] = nil }
            defer { operation.waiters.removeAll() }
            return Array(operation.waiters.values)
        }
        for waiter in waiters { waiter.resume(with: result) }
    }
}
