import Dispatch

/// Runs blocking work on Dispatch's threads instead of Swift concurrency's cooperative pool.
///
/// The cooperative pool has one thread per core: two on a small CI machine. Anything that
/// blocks a thread there (libvips encoding, SQLite, `fsync`/`syncfs`, hashing a file, walking a
/// directory) stalls every other task in the process, including the HTTP client's callbacks and
/// its timers, so a busy disk turns into request timeouts and retries. Async code calls this for
/// every such step; Dispatch adds threads while these block.
///
/// Whatever `work` captured is released before the caller resumes (Dispatch would otherwise
/// free the block, and with it the captures, at some later moment on its own thread): a
/// temporary file that goes away with its last owner is gone when the call returns.
package enum BlockingWork {
    package static func run<T: Sendable, Failure: Error>(
        _ work: @escaping @Sendable () throws(Failure) -> T
    ) async throws(Failure) -> T {
        let pending = PendingWork(work)
        let result = await withCheckedContinuation { (continuation: CheckedContinuation<Result<T, Failure>, Never>) in
            DispatchQueue.global(qos: .userInitiated).async {
                let result = pending.run()
                continuation.resume(returning: result)
            }
        }
        return try result.get()
    }
}

/// Holds the work until it runs, then drops it (and its captures) before anyone is resumed.
private final class PendingWork<T: Sendable, Failure: Error>: @unchecked Sendable {
    // Set once, taken once, on one Dispatch thread; never touched concurrently.
    private var work: (@Sendable () throws(Failure) -> T)?

    init(_ work: @escaping @Sendable () throws(Failure) -> T) {
        self.work = work
    }

    func run() -> Result<T, Failure> {
        guard let work else { preconditionFailure("blocking work run twice") }
        self.work = nil
        return Result { () throws(Failure) -> T in try work() }
    }
}
