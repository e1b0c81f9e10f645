/// Shares one running operation among concurrent callers that ask for the same key, so
/// two `fetch` calls for the same URL cause one download.
///
/// The first caller for a key runs the operation itself, in its own task: most keys are asked
/// for once (a warm's sources are distinct), and such a call then costs no task of its own nor
/// a hand-off between tasks. Callers that ask for the key while it runs wait for its result:
/// - a waiting caller that is cancelled stops waiting at once (it gets `CancellationError`),
///   and the others keep waiting;
/// - a cancelled caller that runs the operation cancels it; callers still waiting then start it
///   afresh (the first of them runs it), so none of them sees a cancellation that was not its own.
/// Once an operation finishes, its key is free again: coalescing is for calls that
/// overlap in time, not a cache.
final class RequestCoalescer<Key: Hashable & Sendable, Value: Sendable>: Sendable {
    private struct Entry {
        let generation: UInt64
        var waiters: [UInt64: CheckedContinuation<Value, Error>] = [:]
    }

    private struct State {
        var entries: [Key: Entry] = [:]
        /// Waiting callers between taking a number and parking their continuation.
        var reserved: Set<UInt64> = []
        /// Callers cancelled in that window; they must not park.
        var cancelledEarly: Set<UInt64> = []
        var nextID: UInt64 = 0
    }

    /// Tells a waiting caller that the operation it waited for was cancelled with the caller
    /// running it: the waiter asks again.
    private struct Restart: Error {}

    private let state = Locked(State())

    /// Returns the result of `operation` for `key`, running it unless an operation for
    /// the same key is already running, in which case its result is shared.
    func value(
        for key: Key, operation: @escaping @Sendable () async throws -> Value
    ) async throws -> Value {
        while true {
            let leads = state.withLock { state -> UInt64? in
                guard state.entries[key] == nil else { return nil }
                state.nextID += 1
                state.entries[key] = Entry(generation: state.nextID)
                return state.nextID
            }
            if let generation = leads {
                return try await run(key: key, generation: generation, operation: operation)
            }
            do {
                return try await wait(for: key)
            } catch is Restart {
                continue
            }
        }
    }

    private func run(key: Key, generation: UInt64, operation: @Sendable () async throws -> Value) async throws -> Value {
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
        if case .failure = result, Task.isCancelled {
            for waiter in waiters { waiter.resume(throwing: Restart()) }
        } else {
            for waiter in waiters { waiter.resume(with: result) }
        }
        return try result.get()
    }

    private func wait(for key: Key) async throws -> Value {
        let caller = state.withLock { state -> UInt64 in
            state.nextID += 1
            state.reserved.insert(state.nextID)
            return state.nextID
        }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Value, Error>) in
                let parked = state.withLock { state -> Error? in
                    state.reserved.remove(caller)
                    if state.cancelledEarly.remove(caller) != nil { return CancellationError() }
                    guard state.entries[key] != nil else { return Restart() }  // it finished meanwhile
                    state.entries[key]?.waiters[caller] = continuation
                    return nil
                }
                if let parked { continuation.resume(throwing: parked) }
            }
        } onCancel: {
            self.cancel(caller: caller, key: key)
        }
    }

    private func cancel(caller: UInt64, key: Key) {
        let waiter = state.withLock { state -> CheckedContinuation<Value, Error>? in
            if state.reserved.contains(caller) {
                state.cancelledEarly.insert(caller)
                return nil
            }
            return state.entries[key]?.waiters.removeValue(forKey: caller)  // nil: already resumed
        }
        waiter?.resume(throwing: CancellationError())
    }
}
