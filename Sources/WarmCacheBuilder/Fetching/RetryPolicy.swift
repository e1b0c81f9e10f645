import Foundation

/// When to try again and how long to wait first.
///
/// Waits use exponential backoff with "full jitter" (a uniformly random delay between 0
/// and the exponential bound), which spreads out clients that failed together. A
/// server's own `Retry-After` wins over the backoff, up to a cap, so one misconfigured
/// server cannot park a build for an hour.
struct RetryPolicy: Sendable {
    /// Attempts allowed in total (first try plus retries).
    let maxAttempts: Int
    let retryDelay: TimeInterval
    let maxBackoff: TimeInterval
    let maxRetryAfter: TimeInterval

    init(settings: FetchSettings) {
        maxAttempts = settings.retries + 1
        retryDelay = settings.retryDelay
        maxBackoff = settings.maxBackoff
        maxRetryAfter = settings.maxRetryAfter
    }

    /// Whether a failure on attempt number `attempt` (1-based) deserves another try.
    func shouldRetry(_ kind: FetchError.Kind, attempt: Int) -> Bool {
        kind.isRetried && attempt < maxAttempts
    }

    /// Seconds to wait after failed attempt number `attempt` (1-based).
    /// - Parameter retryAfter: the server's `Retry-After`, already converted to seconds.
    func delay(afterAttempt attempt: Int, retryAfter: TimeInterval?) -> TimeInterval {
        if let retryAfter {
            return min(max(0, retryAfter), maxRetryAfter)
        }
        let exponent = Double(min(max(attempt - 1, 0), 30))
        let bound = min(maxBackoff, retryDelay * pow(2, exponent))
        return bound > 0 ? Double.random(in: 0...bound) : 0
    }

    /// Parses a `Retry-After` value: either delay-seconds ("120") or an HTTP-date, which
    /// is turned into seconds from `now` (a date in the past means "now": 0).
    static func retryAfterSeconds(_ value: String, now: Date = Date()) -> TimeInterval? {
        let trimmed = value.trimmingCharacters(in: .whitespaces)
        if let seconds = Int(trimmed) { return seconds >= 0 ? TimeInterval(seconds) : nil }
        guard let date = HTTPDate.parse(trimmed) else { return nil }
        return max(0, date.timeIntervalSince(now))
    }
}
