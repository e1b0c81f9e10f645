import Foundation

/// The threads the loader decodes on (and reads bundle files on): a few at a time, first come
/// first served, and a job cancelled before it starts is skipped.
///
/// Why not the cooperative pool that runs Swift's tasks: it has one thread per core, and a
/// decode blocks its thread for milliseconds (a large photo for tens of them); a screenful of
/// decodes there would stall every other task of the app, including the continuations that
/// bring results back to the main actor. Why not a global dispatch queue per job: GCD adds
/// threads while jobs block, so fifty cells scrolling in make fifty threads and fifty bitmaps
/// at once. A width of a few threads keeps the memory of decodes in flight bounded and leaves
/// cores for the main thread; a job waiting in line costs nothing, and when its caller goes
/// away (a cell scrolled off) it is dropped without being decoded.
///
/// ```swift
/// let queue = DecodeQueue(width: 2)
/// let image = try await queue.run { try decoder.decode(encoded, maxPixelSize: 360) }
/// ```
final class DecodeQueue: @unchecked Sendable {
    /// The most jobs running at once.
    let width: Int

    /// A job waiting or running; guarded by the queue's lock.
    private final class Job: @unchecked Sendable {
        let start: @Sendable () -> Void
        let skip: @Sendable () -> Void
        var started = false
        var finished = false
        init(start: @escaping @Sendable () -> Void, skip: @escaping @Sendable () -> Void) {
            self.start = start
            self.skip = skip
        }
    }

    private let lock = NSLock()
    private var waiting: [Job] = []
    private var running = 0
    private let threads: DispatchQueue

    /// A queue running at most `width` jobs at once (at least one), at `qos`.
    init(width: Int, label: String = "WarmCacheLoading.decode", qos: DispatchQoS = .userInitiated) {
        self.width = max(1, width)
        threads = DispatchQueue(label: label, qos: qos, attributes: .concurrent)
    }

    /// Runs `body` on one of the queue's threads when its turn comes, and returns its result.
    ///
    /// - Throws: what `body` throws, or `CancellationError` when the calling task is cancelled
    ///   before `body` starts (it then never runs). Once started, `body` runs to the end.
    func run<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        let box = JobBox()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, any Error>) in
                let job = Job(start: { continuation.resume(with: Result { try body() }) },
                              skip: { continuation.resume(throwing: CancellationError()) })
                enqueue(job, box: box)
            }
        } onCancel: {
            cancel(box)
        }
    }

    /// How many jobs wait for a thread now.
    var waitingCount: Int { lock.withLock { waiting.count } }

    /// Holds the job of one `run` call, which `onCancel` may need before it exists.
    private final class JobBox: @unchecked Sendable {
        var job: Job?
        var cancelled = false
    }

    private func enqueue(_ job: Job, box: JobBox) {
        lock.lock()
        guard !box.cancelled, !Task.isCancelled else {
            lock.unlock()
            return job.skip()
        }
        box.job = job
        waiting.append(job)
        lock.unlock()
        startWaitingJobs()
    }

    private func cancel(_ box: JobBox) {
        lock.lock()
        box.cancelled = true
        guard let job = box.job, !job.started, !job.finished else { return lock.unlock() }
        job.finished = true
        waiting.removeAll { $0 === job }
        lock.unlock()
        job.skip()
    }

    private func startWaitingJobs() {
        lock.lock()
        var next: [Job] = []
        while running < width, !waiting.isEmpty {
            let job = waiting.removeFirst()
            job.started = true
            running += 1
            next.append(job)
        }
        lock.unlock()
        for job in next {
            threads.async {
                job.start()
                self.lock.withLock {
                    job.finished = true
                    self.running -= 1
                }
                self.startWaitingJobs()
            }
        }
    }
}
