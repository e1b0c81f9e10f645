import Dispatch

/// Runs blocking work on Dispatch's threads instead of Swift concurrency's cooperative pool.
///
/// The cooperative pool has one thread per core: two on a small CI machine. Anything that
/// blocks a thread there (libvips encoding, SQLite, `fsync`/`syncfs`, hashing a file, walking a
/// directory) stalls every other task in the process, including the HTTP client's callbacks and
/// its timers, so a busy disk turns into request timeouts and retries. Async code calls this for
/// every such step.
///
/// Each piece of work gets a serial queue of its own. Dispatch serves serial queues from its
/// overcommitting pool, which starts a thread at once when none is free; a concurrent queue is
/// served by a pool of one thread per core that grows only when a monitor notices blocked
/// threads, once a second on Linux. Blocking work there ran two at a time for the first seconds
/// of every run: a re-warm never left them, and a cold warm's imaging processes waited for
/// sources meanwhile. Callers bound their own concurrency (encodes by the pipeline's imaging
/// slots, everything else by the sources in flight), and idle threads are reused.
package enum BlockingWork {

    package static func run<T: Sendable, Failure: Error>(
        _ work: @escaping @Sendable () throws(Failure) -> T
    ) async throws(Failure) -> T {
        let job = Job(work)
        let result = await withCheckedContinuation { (continuation: CheckedContinuation<Result<T, Failure>, Never>) in
            DispatchQueue(label: "warm-cache.blocking-work", qos: .userInitiated).async {
                let result = job.run()
                continuation.resume(returning: result)
            }
        }
        return try result.get()
    }

    /// One piece of work, let go of as soon as it has run: whatever it captured (a staged
    /// download whose file goes with its last reference, say) is released before the caller
    /// resumes, not whenever Dispatch disposes of the block.
    private final class Job<T, Failure: Error>: @unchecked Sendable {
        // Kept as a function returning a `Result`: an optional typed-throws function type needs
        // runtime metadata that Apple platforms have only from macOS 15 and iOS 18.
        private var work: (@Sendable () -> Result<T, Failure>)?

        init(_ work: @escaping @Sendable () throws(Failure) -> T) {
            self.work = { Result { () throws(Failure) -> T in try work() } }
        }

        /// Runs once, on one thread.
        func run() -> Result<T, Failure> {
            guard let work else { preconditionFailure("a blocking job ran twice") }
            self.work = nil
            return work()
        }
    }
}
