import Dispatch

/// Thrown by ``withTimeLimit(_:operation:)`` when the limit passes first.
struct TimeLimitExceeded: Error {}

/// Runs `operation`, cancelling it if it has not finished after `seconds`.
///
/// AsyncHTTPClient's `deadline` only covers the wait for the response *head*; the body
/// is streamed afterwards with no deadline at all. Cancelling the whole attempt when its time is
/// up gives a real whole-request limit: a cancelled task makes AsyncHTTPClient abort the request
/// and close its connection.
///
/// The operation runs as its own task, which one shared ``DeadlineWatchdog`` cancels when the
/// deadline passes. A request costs one task and an entry in the watchdog's table, not a task
/// group with a second task sleeping on a timer: a re-warm sends thousands of `304` requests a
/// second, and this made one of 8,000 sources about a tenth faster.
///
/// Cancelling the caller cancels the operation, so the caller sees `CancellationError` (not a timeout).
func withTimeLimit<T: Sendable>(
    _ seconds: Double, operation: @escaping @Sendable () async throws -> T
) async throws -> T {
    let task = Task { try await operation() }
    let expired = Locked(false)
    let ticket = DeadlineWatchdog.shared.watch(for: seconds) {
        expired.withLock { $0 = true }
        task.cancel()
    }
    defer { DeadlineWatchdog.shared.release(ticket) }
    do {
        return try await withTaskCancellationHandler {
            try await task.value
        } onCancel: {
            task.cancel()
        }
    } catch {
        if expired.withLock({ $0 }) { throw TimeLimitExceeded() }
        throw error
    }
}

/// Calls each watched action once its deadline has passed, checking every 50 ms from one
/// Dispatch timer that runs only while something is watched.
final class DeadlineWatchdog: @unchecked Sendable {
    static let shared = DeadlineWatchdog(interval: .milliseconds(50))

    struct Ticket {
        fileprivate let id: UInt64
    }

    private struct State {
        var nextID: UInt64 = 0
        var entries: [UInt64: (deadline: UInt64, action: @Sendable () -> Void)] = [:]
        var isTicking = false
    }

    private let state = Locked(State())
    private let timer: DispatchSourceTimer

    init(interval: DispatchTimeInterval) {
        timer = DispatchSource.makeTimerSource(queue: DispatchQueue(label: "warm-cache.deadlines"))
        timer.schedule(deadline: .now() + interval, repeating: interval, leeway: .milliseconds(10))
        timer.setEventHandler { [unowned self] in self.tick() }
    }

    /// Calls `action` (once, from the watchdog's queue) when `seconds` have passed, unless the
    /// ticket is released first.
    func watch(for seconds: Double, action: @escaping @Sendable () -> Void) -> Ticket {
        let deadline = DispatchTime.now().uptimeNanoseconds + UInt64(max(0, seconds) * 1e9)
        return state.withLock { state in
            state.nextID += 1
            state.entries[state.nextID] = (deadline, action)
            if !state.isTicking {
                state.isTicking = true
                timer.resume()  // balanced with the suspend in tick(), both under the lock
            }
            return Ticket(id: state.nextID)
        }
    }

    /// Stops watching (the operation finished).
    func release(_ ticket: Ticket) {
        state.withLock { _ = $0.entries.removeValue(forKey: ticket.id) }
    }

    private func tick() {
        let now = DispatchTime.now().uptimeNanoseconds
        let due = state.withLock { state -> [@Sendable () -> Void] in
            let expired = state.entries.filter { $0.value.deadline <= now }
            for id in expired.keys { state.entries.removeValue(forKey: id) }
            if state.isTicking, state.entries.isEmpty {
                state.isTicking = false
                timer.suspend()
            }
            return expired.values.map(\.action)
        }
        for action in due { action() }
    }
}
