/// A counting semaphore for Swift concurrency: at most `limit` holders at a time, the
/// others suspended (not blocking a thread) in FIFO order, or largest `priority` first when
/// waiters give one (equal priorities in FIFO order; every eighth permit still goes to the
/// longest waiter, so none waits for ever).
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
        case waiting(CheckedContinuation<Void, Error>, priority: Int)
        case cancelledEarly
    }

    private struct State {
        var available: Int
        var tickets: [UInt64: Ticket] = [:]
        /// Ticket numbers in arrival order; cancelled ones are skipped lazily on release.
        var queue: [UInt64] = []
        var queueHead = 0
        var nextTicket: UInt64 = 0

        /// Parked waiters that gave a priority above 0.
        var prioritized = 0

        /// Pops a parked ticket, if any: the oldest, or with prioritized waiters ``popLargest()``'s choice.
        mutating func popWaiter() -> CheckedContinuation<Void, Error>? {
            if prioritized > 0, let continuation = popLargest() { return continuation }
            while queueHead < queue.count {
                let ticket = queue[queueHead]
                queueHead += 1
                if case .waiting(let continuation, _)? = tickets.removeValue(forKey: ticket) {
                    compactQueue()
                    return continuation
                }
            }
            compactQueue()
            return nil
        }

        /// Grants made to prioritized waiters since the oldest waiter last got one.
        var grantsPassingOldest = 0

        /// The parked waiter with the largest priority (the oldest of those); every eighth grant
        /// goes to the oldest waiter instead, so a small priority waits a bounded time. Scans the
        /// live tickets: a pipeline's window of them.
        private mutating func popLargest() -> CheckedContinuation<Void, Error>? {
            var best: (ticket: UInt64, priority: Int)?
            var oldest: UInt64?
            for (ticket, entry) in tickets {
                guard case .waiting(_, let priority) = entry else { continue }
                if ticket < oldest ?? .max { oldest = ticket }
                if let current = best, priority < current.priority || (priority == current.priority && ticket > current.ticket) {
                    continue
                }
                best = (ticket, priority)
            }
            guard var chosen = best?.ticket, let oldest else { return nil }
            grantsPassingOldest += 1
            if grantsPassingOldest >= 8 { chosen = oldest }
            if chosen == oldest { grantsPassingOldest = 0 }
            guard case .waiting(let continuation, let priority)? = tickets.removeValue(forKey: chosen) else { return nil }
            if priority > 0 { prioritized -= 1 }
            // Granted tickets leave their numbers in the arrival queue: drop those at its front.
            while queueHead < queue.count, tickets[queue[queueHead]] == nil { queueHead += 1 }
            compactQueue()
            return continuation
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

    /// How many waiters are parked (for tests).
    var parkedCount: Int {
        state.withLock { state in
            state.tickets.values.filter { if case .waiting = $0 { return true } else { return false } }.count
        }
    }

    /// Runs `body` while holding a permit.
    func withPermit<T>(_ body: () async throws -> T) async throws -> T {
        try await acquire()
        defer { release() }
        return try await body()
    }

    /// Waits for a permit. Throws `CancellationError` if the task is cancelled first.
    /// - Parameter priority: while permits are short, the waiter with the largest priority gets
    ///   the next one (equal priorities in arrival order).
    func acquire(priority: Int = 0) async throws {
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
                    state.tickets[ticket] = .waiting(continuation, priority: priority)
                    state.queue.append(ticket)
                    if priority > 0 { state.prioritized += 1 }
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
                case .waiting(let continuation, let priority)?:
                    state.tickets[ticket] = nil
                    if priority > 0 { state.prioritized -= 1 }
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
