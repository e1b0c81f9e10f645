/// Thrown by ``withTimeLimit(_:operation:)`` when the limit passes first.
struct TimeLimitExceeded: Error {}

/// Runs `operation`, cancelling it if it has not finished after `seconds`.
///
/// AsyncHTTPClient's `deadline` only covers the wait for the response *head*; the body
/// is streamed afterwards with no deadline at all. Racing the whole attempt against a
/// timer gives a real whole-request limit: when the timer wins, the operation's task is
/// cancelled, which makes AsyncHTTPClient abort the request and close its connection.
///
/// Cancelling the caller cancels both children, so the caller sees `CancellationError`
/// (not a timeout).
func withTimeLimit<T: Sendable>(
    _ seconds: Double, operation: @escaping @Sendable () async throws -> T
) async throws -> T {
    try await withThrowingTaskGroup(of: T?.self) { group in
        group.addTask { try await operation() }
        group.addTask {
            try await Task.sleep(nanoseconds: UInt64(max(0, seconds) * 1_000_000_000))
            throw TimeLimitExceeded()
        }
        defer { group.cancelAll() }
        // The first child to finish decides; the timer child never returns a value.
        guard let result = try await group.next(), let value = result else {
            throw CancellationError()
        }
        return value
    }
}
