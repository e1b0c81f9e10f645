import Foundation
import Testing

@testable import WarmCacheBuilder

@Suite("Fetch: building blocks")
struct FetchPrimitivesTests {
    actor Gauge {
        private(set) var current = 0
        private(set) var peak = 0
        private(set) var entered = 0
        func enter() { current += 1; entered += 1; peak = max(peak, current) }
        func leave() { current -= 1 }
    }

    /// An operation whose first run lasts until it is cancelled (30 s at most) and whose later
    /// runs return 7 at once, so a test never depends on how fast a busy machine schedules it.
    static func firstRunWaitsForCancellation(_ runs: Gauge) -> @Sendable () async throws -> Int {
        {
            await runs.enter()
            if await runs.entered == 1 {
                do {
                    try await Task.sleep(nanoseconds: 30_000_000_000)
                } catch {
                    await runs.leave()
                    throw error
                }
            }
            await runs.leave()
            return 7
        }
    }

    /// Waits until `runs` has seen the operation start.
    static func waitUntilStarted(_ runs: Gauge) async throws {
        while await runs.entered == 0 { try await Task.sleep(nanoseconds: 5_000_000) }
    }

    @Test("AsyncSemaphore never lets more than its limit in")
    func semaphoreLimit() async throws {
        let semaphore = AsyncSemaphore(limit: 3)
        let gauge = Gauge()
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<40 {
                group.addTask {
                    try await semaphore.withPermit {
                        await gauge.enter()
                        await Task.yield()
                        try await Task.sleep(nanoseconds: 1_000_000)
                        await gauge.leave()
                    }
                }
            }
            try await group.waitForAll()
        }
        #expect(await gauge.peak <= 3)
        #expect(await gauge.current == 0)
    }

    @Test("A waiter cancelled in the queue throws and gives its turn away")
    func semaphoreCancellation() async throws {
        let semaphore = AsyncSemaphore(limit: 1)
        try await semaphore.acquire()
        let waiter = Task { try await semaphore.acquire() }
        try await Task.sleep(nanoseconds: 20_000_000)
        waiter.cancel()
        await #expect(throws: CancellationError.self) { try await waiter.value }

        // The permit is still the holder's: releasing it lets a new waiter through.
        let next = Task { try await semaphore.acquire() }
        semaphore.release()
        try await next.value
        semaphore.release()
    }

    /// A semaphore whose one permit is held, with `waiters` parked in the order given (each
    /// parks before the next arrives), and the labels of those granted, in grant order.
    struct ParkedWaiters {
        let semaphore = AsyncSemaphore(limit: 1)
        let granted = Locked<[String]>([])
        var tasks: [String: Task<Void, Error>] = [:]

        init(_ waiters: [(label: String, priority: Int)]) async throws {
            try await semaphore.acquire()
            for (label, priority) in waiters {
                let parked = semaphore.parkedCount
                tasks[label] = Task { [semaphore, granted] in
                    try await semaphore.acquire(priority: priority)
                    granted.withLock { $0.append(label) }
                }
                while semaphore.parkedCount == parked { await Task.yield() }
            }
        }

        /// Releases `count` permits one at a time, each once the last one's waiter has it.
        func release(_ count: Int) async -> [String] {
            for granted in 1...count {
                semaphore.release()
                while self.granted.withLock({ $0.count }) < granted { await Task.yield() }
            }
            return self.granted.withLock { $0 }
        }
    }

    @Test("Waiters with a priority get permits largest first, equal ones in arrival order")
    func semaphorePriorities() async throws {
        let waiters = try await ParkedWaiters([("a", 0), ("b", 5), ("c", 5), ("d", 9), ("f", 7), ("e", 0)])
        waiters.tasks["f"]?.cancel()
        await #expect(throws: CancellationError.self) { try await waiters.tasks["f"]!.value }
        #expect(await waiters.release(5) == ["d", "b", "c", "a", "e"])
        #expect(waiters.semaphore.parkedCount == 0)
        waiters.semaphore.release()
    }

    @Test("A waiter with a small priority still gets every eighth permit when it waits longest")
    func semaphorePrioritiesDoNotStarve() async throws {
        let waiters = try await ParkedWaiters([("old", 0)] + (1...10).map { ("p\($0)", $0) })
        #expect(await waiters.release(11) == ["p10", "p9", "p8", "p7", "p6", "p5", "p4", "old", "p3", "p2", "p1"])
        waiters.semaphore.release()
    }

    @Test("An already-cancelled task does not take a permit")
    func semaphoreCancelledBeforehand() async throws {
        let semaphore = AsyncSemaphore(limit: 1)
        let task = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            try await semaphore.acquire()
        }
        await #expect(throws: CancellationError.self) { try await task.value }
        try await semaphore.acquire()  // would hang if the cancelled task had kept it
        semaphore.release()
    }

    @Test("The coalescer runs one operation for overlapping callers")
    func coalescerShares() async throws {
        let coalescer = RequestCoalescer<String, Int>()
        let runs = Gauge()
        let values = try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<5 {
                group.addTask {
                    try await coalescer.value(for: "k") {
                        await runs.enter()
                        try await Task.sleep(nanoseconds: 200_000_000)
                        return 42
                    }
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(values == Array(repeating: 42, count: 5))
        #expect(await runs.peak == 1)
    }

    @Test("Cancelling one waiter does not disturb the others; cancelling the last cancels the operation")
    func coalescerCancellation() async throws {
        let coalescer = RequestCoalescer<String, Int>()
        let runs = Gauge()
        // The operation runs until the test releases it, so the waiter is cancelled while it runs.
        let (release, releasing) = AsyncStream<Void>.makeStream()
        let first = Task { try await coalescer.value(for: "k") { () async throws -> Int in
            await runs.enter()
            for await _ in release { break }
            await runs.leave()
            return 9
        } }
        try await Self.waitUntilStarted(runs)
        let second = Task { try await coalescer.value(for: "k") { () async throws -> Int in 0 } }
        try await Task.sleep(nanoseconds: 50_000_000)
        second.cancel()
        await #expect(throws: CancellationError.self) { try await second.value }
        releasing.yield()
        #expect(try await first.value == 9)
        #expect(await runs.entered == 1)

        let lone = Task { try await coalescer.value(for: "k") { () async throws -> Int in
            try await Task.sleep(nanoseconds: 30_000_000_000)
            return 1
        } }
        try await Task.sleep(nanoseconds: 50_000_000)
        let started = Date()
        lone.cancel()
        await #expect(throws: CancellationError.self) { try await lone.value }
        #expect(Date().timeIntervalSince(started) < 10)
    }

    /// The first caller runs the operation in its own task: cancelling it cancels the operation,
    /// and a caller still waiting runs it afresh rather than seeing someone else's cancellation.
    @Test("Cancelling the caller that runs the operation hands it to a waiting caller")
    func coalescerLeaderCancelled() async throws {
        let coalescer = RequestCoalescer<String, Int>()
        let runs = Gauge()
        let operation = Self.firstRunWaitsForCancellation(runs)
        let first = Task { try await coalescer.value(for: "k", operation: operation) }
        try await Self.waitUntilStarted(runs)
        let second = Task { try await coalescer.value(for: "k", operation: operation) }
        try await Task.sleep(nanoseconds: 50_000_000)
        first.cancel()
        await #expect(throws: CancellationError.self) { try await first.value }
        #expect(try await second.value == 7)
        #expect(await runs.peak == 1)
    }

    @Test("Backoff stays within the exponential bound and the cap")
    func backoffBounds() {
        let policy = RetryPolicy(settings: FetchSettings(retries: 5, retryDelay: 0.25, maxBackoff: 1, maxRetryAfter: 10))
        for _ in 0..<100 {
            #expect((0...0.25).contains(policy.delay(afterAttempt: 1, retryAfter: nil)))
            #expect((0...0.5).contains(policy.delay(afterAttempt: 2, retryAfter: nil)))
            #expect((0...1).contains(policy.delay(afterAttempt: 9, retryAfter: nil)))
        }
        #expect(policy.delay(afterAttempt: 1, retryAfter: 3) == 3)
        #expect(policy.delay(afterAttempt: 1, retryAfter: 3_600) == 10)
        #expect(policy.maxAttempts == 6)
    }

    @Test("Retry-After parses delay-seconds and all three HTTP-date forms")
    func retryAfterParsing() {
        let now = Date(timeIntervalSince1970: 784_111_777)  // Sun, 06 Nov 1994 08:49:37 GMT
        #expect(RetryPolicy.retryAfterSeconds("120", now: now) == 120)
        #expect(RetryPolicy.retryAfterSeconds(" 5 ", now: now) == 5)
        #expect(RetryPolicy.retryAfterSeconds("-1", now: now) == nil)
        #expect(RetryPolicy.retryAfterSeconds("soon", now: now) == nil)
        #expect(RetryPolicy.retryAfterSeconds("Sun, 06 Nov 1994 08:49:47 GMT", now: now) == 10)
        #expect(RetryPolicy.retryAfterSeconds("Sunday, 06-Nov-94 08:49:57 GMT", now: now) == 20)
        #expect(RetryPolicy.retryAfterSeconds("Sun Nov  6 08:50:07 1994", now: now) == 30)
        #expect(RetryPolicy.retryAfterSeconds("Sun, 06 Nov 1994 08:00:00 GMT", now: now) == 0)
    }

    @Test("Only transient failures are retried")
    func transientKinds() {
        #expect(FetchError.Kind.httpStatus(500).isTransient)
        #expect(FetchError.Kind.httpStatus(429).isTransient)
        #expect(!FetchError.Kind.httpStatus(404).isTransient)
        #expect(FetchError.Kind.httpStatus(408).isTransient)
        #expect(FetchError.Kind.truncated(expected: 2, received: 1).isTransient)
        #expect(FetchError.Kind.timeout(seconds: 1).isTransient)
        #expect(!FetchError.Kind.notAnImage(sniffed: "HTML page", contentType: nil).isTransient)
        #expect(!FetchError.Kind.tooLarge(limit: 1, declared: nil).isTransient)
    }
}
