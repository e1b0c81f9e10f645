import Dispatch

/// Runs CPU-bound, blocking work (libvips) on Dispatch's threads instead of Swift concurrency's
/// cooperative pool, so that encoding on every core never starves the tasks driving downloads.
enum BlockingWork {
    static func run<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global(qos: .userInitiated).async {
                continuation.resume(with: Result { try work() })
            }
        }
    }
}
