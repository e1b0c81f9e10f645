/// Shares one running operation among concurrent callers that ask for the same key, so
/// two `fetch` calls for the same URL cause one download.
///
/// The operation runs in its own task, owned by the coalescer rather than by any caller:
/// - a caller that is cancelled stops waiting at once (it gets `CancellationError`), and
///   the others keep waiting for the shared result;
/// - when the *last* waiter is cancelled, the operation is cancelled too and forgotten,
///   so a later caller starts afresh instead of joining a dying operation.
/// Once an operation finishes, its key is free again: coalescing is for calls that
/// overlap in time, not a cache.
final class RequestCoalescer<Key: Hashable & Sendable, Value: Sendable>: Sendable {
    private struct Entry {
        let generation: UInt64
        var task: Task<Void, Never>?
        var waiters: [UInt64: CheckedContinuation<Value, Error>]
    }

    private struct State {
        var entries: [Key: Entry] = [:]
        /// Callers between taking a number and parking their continuation.
        var reserved: Set<UInt64> = []
        /// Callers cancelled in that window; they must not park.
        var cancelledEarly: Set<UInt64> = []
        var nextID: UInt64 = 0
    }

    private let state = Locked(State())

    /// Returns the result of `operation` for `key`, starting it unless an operation for
    /// the same key is already running, in which case its result is shared.
    func value(
        for key: Key, operation: @escaping @Sendable () async throws -> Value
    ) async throws -> Value {
        let caller = state.withLock { state -> UInt64 in
            state.nextID += 1
            state.reserved.insert(state.nextID)
            return state.nextID
        }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Value, Error>) in
                let cancelled = state.withLock { state -> Bool in
                    state.reserved.remove(caller)
                    if state.cancelledEarly.remove(caller) != nil { return true }
                    if state.entries[key] != nil {
                        state.entries[key]?.waiters[caller] = continuation
                    } else {
                        state.nextID += 1
                        let generation = state.nextID
                        state.entries[key] = Entry(generation: generation, task: nil, waiters: [caller: continuation])
                        state.entries[key]?.task = Task {
                            await self.run(key: key, generation: generation, operation: operation)
                        }
                    }
                    return false
                }
                if cancelled { continuation.resume(throwing: CancellationError()) }
            }
        } onCancel: {
            self.cancel(caller: caller, key: key)
        }
    }

    /// Cancels every running operation (used when the owner shuts down). Their waiters
    /// receive whatever error the cancelled operations throw.
    func cancelAll() {
        let tasks = state.withLock { state in state.entries.values.compactMap(\.task) }
        for task in tasks { task.cancel() }
    }

    private func run(key: Key, generation: UInt64, operation: @Sendable () async throws -> Value) async {
        let result: Result<Value, Error>
        do {
            result = .success(try await operation())
        } catch {
            result = .failure(error)
        }
        let waiters = state.withLock { state -> [CheckedContinuation<Value, Error>] in
            guard let entry = state.entries[key], entry.generation == generation else { return [] }
            state.entries[key] = nil
            return Array(entry.waiters.values)
        }
        // The last waiter takes this task's reference with it, so nothing here keeps the value
        // (a staged download's file, say) alive after every waiter has moved on.
        var rest = waiters
        guard let last = rest.popLast() else { return }
        for waiter in rest { waiter.resume(with: result) }
        last.resume(with: consume result)
    }

    private func cancel(caller: UInt64, key: Key) {
        let (waiter, orphanedTask) = state.withLock {
            state -> (CheckedContinuation<Value, Error>?, Task<Void, Never>?) in
            if state.reserved.contains(caller) {
                state.cancelledEarly.insert(caller)
                return (nil, nil)
            }
            guard var entry = state.entries[key], let waiter = entry.waiters.removeValue(forKey: caller) else {
                return (nil, nil)  // already resumed with the result
            }
            if entry.waiters.isEmpty {
                state.entries[key] = nil
                return (waiter, entry.task)
            }
            state.entries[key] = entry
            return (waiter, nil)
        }
        waiter?.resume(throwing: CancellationError())
        orphanedTask?.cancel()
    }
}
