/// A counting semaphore for Swift concurrency: at most `limit` holders at a time, the
/// others suspended (not blocking a thread) in FIFO order.
///
/// Cancellation-safe: a task cancelled while waiting stops waiting at once and throws
/// `CancellationError`, without taking a permit. A task whose permit was granted just as
/// it was cancelled keeps the permit (and must release it as usual); `withPermit` takes
/// care of that.
final class AsyncSemaphore: Sendable {
    /// A waiter's life: it reserves a ticket, then either parks a continuation or learns
    /// it was cancelled before it could park. Granting or cancelling removes the ticket.
    private enum Ticket {
        case reserved
        case waiting(CheckedContinuation<Void, Error>)
        case cancelledEarly
    }

    private struct State {
        var available: Int
        var tickets: [UInt64: Ticket] = [:]
        /// Ticket numbers in arrival order; cancelled ones are skipped lazily on release.
        var queue: [UInt64] = []
        var queueHead = 0
        var nextTicket: UInt64 = 0

        /// Pops the oldest ticket that is actually parked, if any.
        mutating func popWaiter() -> CheckedContinuation<Void, Error>? {
            while queueHead < queue.count {
                let ticket = queue[queueHead]
                queueHead += 1
                if case .waiting(let continuation)? = tickets.removeValue(forKey: ticket) {
                    compactQueue()
                    return continuation
                }
            }
            compactQueue()
            return nil
        }

        /// Drops consumed queue slots once they outnumber the live ones.
        private mutating func compactQueue() {
            if queueHead > 64, queueHead * 2 > queue.count {
                queue.removeFirst(queueHead)
                queueHead = 0
            }
        }
    }

    private let state: Locked<State>

    /// - Parameter limit: the number of permits (at least 1).
    init(limit: Int) {
        state = Locked(State(available: max(1, limit)))
    }

    /// Runs `body` while holding a permit.
    func withPermit<T>(_ body: () async throws -> T) async throws -> T {
        try await acquire()
        defer { release() }
        return try await body()
    }

    /// Waits for a permit. Throws `CancellationError` if the task is cancelled first.
    func acquire() async throws {
        try Task.checkCancellation()
        let ticket: UInt64? = state.withLock { state in
            if state.available > 0 {
                state.available -= 1
                return nil
            }
            state.nextTicket += 1
            state.tickets[state.nextTicket] = .reserved
            return state.nextTicket
        }
        guard let ticket else { return }

        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, Error>) in
                let cancelled = state.withLock { state -> Bool in
                    if case .cancelledEarly? = state.tickets[ticket] {
                        state.tickets[ticket] = nil
                        return true
                    }
                    state.tickets[ticket] = .waiting(continuation)
                    state.queue.append(ticket)
                    return false
                }
                if cancelled { continuation.resume(throwing: CancellationError()) }
            }
        } onCancel: {
            let parked: CheckedContinuation<Void, Error>? = state.withLock { state in
                switch state.tickets[ticket] {
                case .reserved?:
                    state.tickets[ticket] = .cancelledEarly
                    return nil
                case .waiting(let continuation)?:
                    state.tickets[ticket] = nil
                    return continuation
                case .cancelledEarly?, nil:
                    return nil  // already granted: the permit is the caller's to release
                }
            }
            parked?.resume(throwing: CancellationError())
        }
    }

    /// Returns a permit, handing it straight to the longest waiter if there is one.
    func release() {
        let next: CheckedContinuation<Void, Error>? = state.withLock { state in
            if let waiter = state.popWaiter() { return waiter }
            state.available += 1
            return nil
        }
        next?.resume()
    }
}
