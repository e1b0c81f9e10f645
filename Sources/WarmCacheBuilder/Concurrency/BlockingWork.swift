import Dispatch

/// Runs blocking work on Dispatch's threads instead of Swift concurrency's cooperative pool.
///
/// The cooperative pool has one thread per core: two on a small CI machine. Anything that
/// blocks a thread there (libvips encoding, SQLite, `fsync`/`syncfs`, hashing a file, walking a
/// directory) stalls every other task in the process, including the HTTP client's callbacks and
/// its timers, so a busy disk turns into request timeouts and retries. Async code calls this for
/// every such step; Dispatch adds threads while these block.
package enum BlockingWork {
    package static func run<T: Sendable, Failure: Error>(
        _ work: @escaping @Sendable () throws(Failure) -> T
    ) async throws(Failure) -> T {
        let result = await withCheckedContinuation { (continuation: CheckedContinuation<Result<T, Failure>, Never>) in
            DispatchQueue.global(qos: .userInitiated).async {
                continuation.resume(returning: Result { () throws(Failure) -> T in try work() })
            }
        }
        return try result.get()
    }
}
