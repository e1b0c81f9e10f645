/// Which renders may start, and which imaging processes, within a memory limit: the bookkeeping
/// of ``ImagingProcessPool``, kept apart so that its rules can be tested without processes.
///
/// Every process counts ``perProcess`` bytes (what it holds idle) from the moment it is
/// planned until it stops, and every render its estimate while it runs. A render is admitted when
/// the sum stays within the limit, or when nothing else renders (a render larger than the limit
/// runs alone rather than never); a process is added only when there is room for it and the
/// render that waits for it. Not thread-safe: the pool holds its lock around every call.
///
/// ```swift
/// var memory = MemoryAdmission(limit: 400 << 20, perProcess: 70 << 20)
/// memory.processStarted()                         // 70 MiB
/// memory.admits(300 << 20)                        // true: nothing renders yet
/// memory.started(300 << 20)                       // 370 MiB
/// memory.admits(100 << 20)                        // false: 470 MiB would be over the limit
/// memory.allowsAnotherProcess(forRender: 20 << 20) // false
/// ```
package struct MemoryAdmission: Sendable {
    /// The bytes the processes may hold together; `nil`: no limit.
    package let limit: Int?
    /// What one idle process holds.
    package let perProcess: Int
    /// Processes counted (started, or about to start).
    package private(set) var processes = 0
    /// Renders running, and the bytes they were estimated to need.
    package private(set) var rendering = 0
    package private(set) var renderingBytes = 0

    package init(limit: Int?, perProcess: Int) {
        self.limit = limit
        self.perProcess = perProcess
    }

    /// The bytes counted now.
    package var reserved: Int { processes * perProcess + renderingBytes }

    /// Whether a render estimated at `bytes` may start now.
    package func admits(_ bytes: Int) -> Bool {
        guard let limit, rendering > 0 else { return true }
        return reserved + bytes <= limit
    }

    /// Whether one more process may start for a render estimated at `bytes` (the first always may).
    package func allowsAnotherProcess(forRender bytes: Int) -> Bool {
        guard let limit, processes > 0 else { return true }
        return reserved + perProcess + bytes <= limit
    }

    /// How many of `count` processes may start before any render is known: as many as leave
    /// three quarters of the limit for rendering, at least one.
    package func processesToPrestart(_ count: Int) -> Int {
        guard let limit else { return count }
        return min(count, max(1, limit / (4 * perProcess)))
    }

    package mutating func processStarted() { processes += 1 }
    package mutating func processStopped() { processes -= 1 }

    package mutating func started(_ bytes: Int) {
        rendering += 1
        renderingBytes += bytes
    }

    package mutating func finished(_ bytes: Int) {
        rendering -= 1
        renderingBytes -= bytes
    }
}
