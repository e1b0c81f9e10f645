import Foundation
import WarmCache

/// Imaging processes that render sources for a warm, one source per process at a time.
///
/// Rendering small images in one process, several at once, leaves a fifth to a quarter of the
/// cores idle: every libvips pipeline hands its work between threads many times per image, and
/// concurrent pipelines in one process contend for libvips' and GLib's process-wide locks and
/// wake each other's threads across cores. One process per imaging slot, each rendering one
/// source at a time as the pyvips scripts people compare with do, keeps the cores busy (see
/// `docs/imaging.md`). A libvips crash on a hostile image also ends only its process: the source
/// is rendered once more in a new process and, if that crashes too, fails alone.
///
/// Sources wait in one queue; each process has a thread of this process that sends it the next
/// source as soon as it answers the last. A process then never waits for its caller to be
/// scheduled again (on a busy machine that took longer than rendering a small image), so callers
/// should keep a few more sources queued than there are processes. Processes start on first use
/// and are reused.
///
/// With a memory limit, sources are admitted by what they need (``OpenedSource/memoryNeeded(candidates:placeholder:)``,
/// passed to ``render(_:name:specs:alphaSpecs:placeholder:memory:onVariant:)``): a source waits
/// while the processes' idle memory and the needs of the sources rendering leave no room for
/// its own, and a process starts only when there is room for it and its first source. Fewer
/// processes then render at once (a source that needs more than the limit renders alone), and
/// memory stays within the limit as far as the estimates hold.
///
/// Each process renders one source at a time, so by default it runs libvips' vector paths even
/// where a process rendering several at once must not (``ImagingRuntime/VectorPaths/oneRenderAtATime``):
/// on libvips 8.14 its plain C resampling loop took ~10 % of a small image's CPU (4.6 % less CPU
/// in all with the vector paths on, once liborc's own compiles are counted).
package final class ImagingProcessPool: @unchecked Sendable {
    /// Whether the processes run libvips' vector paths (they round differently, so render
    /// records must say which).
    package let vectorPathsEnabled: Bool
    /// How many processes render at once, at most.
    package let processCount: Int
    /// The memory the processes may hold together, in bytes; `nil`: no limit.
    package let memoryLimit: Int?
    /// What an idle imaging process holds (libvips and its modules, the Swift runtime), as
    /// measured on Linux (58–66 MiB), rounded up: every process counts this against the limit.
    package static let idleProcessMemory = 72 << 20
    private let queue: JobQueue

    /// - Parameter command: the executable and arguments that serve ``ImagingWorker`` (the
    ///   `warm-cache` executable with `imaging-worker`).
    /// - Parameter vectorPaths: how the processes start libvips' vector paths.
    /// - Parameter processes: how many processes render at once (at least 1).
    /// - Parameter memoryLimit: the bytes the processes may hold together (`nil`: no limit).
    package init(command: [String], configuration: ImagingConfiguration,
                 vectorPaths: ImagingRuntime.VectorPaths = .oneRenderAtATime,
                 processes: Int = ProcessInfo.processInfo.activeProcessorCount + 1, memoryLimit: Int? = nil) {
        precondition(!command.isEmpty, "an imaging process needs a command")
        processCount = max(1, processes)
        self.memoryLimit = memoryLimit
        queue = JobQueue(command: command, setup: ImagingWire.Setup(configuration: configuration, vectorPaths: vectorPaths),
                         driverLimit: processCount,
                         memory: MemoryAdmission(limit: memoryLimit, perProcess: Self.idleProcessMemory))
        // The processes run the same libraries in the same environment: they decide as this one
        // would (a runtime that cannot start here cannot start there either: nothing renders).
        vectorPathsEnabled = (try? ImagingRuntime.started())?.vectorPaths(vectorPaths) ?? false
        // A process that died must be a failed write, not the end of the warm.
        signal(SIGPIPE, SIG_IGN)
    }

    deinit {
        queue.close()
    }

    /// Opens and renders a source in one of the processes, like ``ImagingEngine/open(_:name:)``
    /// then ``OpenedSource/render(candidates:placeholder:)`` with `specs` (groups of candidates) for an opaque source and
    /// `alphaSpecs` for one with alpha. Returns the header's facts with the render. Blocks the
    /// calling thread while the source waits for a process and renders.
    /// ``render(_:name:specs:alphaSpecs:placeholder:memory:onVariant:)`` with one candidate per variant.
    package func render(_ bytes: Data, name: String, specs: [VariantSpec], alphaSpecs: [VariantSpec],
                        placeholder: PlaceholderKinds) throws(ImagingError) -> (SourceImageInfo, RenderedSource) {
        try render(bytes, name: name, specs: specs.map { [$0] }, alphaSpecs: alphaSpecs.map { [$0] },
                   placeholder: placeholder)
    }

    /// `memory` is what the render is estimated to need (``OpenedSource/memoryNeeded(candidates:placeholder:)``),
    /// which it waits for under a memory limit. `onVariant` is called (on the process's driver
    /// thread) as each variant is encoded.
    package func render(_ bytes: Data, name: String, specs: [[VariantSpec]], alphaSpecs: [[VariantSpec]],
                        placeholder: PlaceholderKinds, memory: Int = 0, onVariant: (@Sendable () -> Void)? = nil)
        throws(ImagingError) -> (SourceImageInfo, RenderedSource) {
        let job = Job(bytes: bytes, name: name, specs: specs, alphaSpecs: alphaSpecs, placeholder: placeholder,
                      memory: memory, onVariant: onVariant)
        guard queue.submit(job) else {
            throw ImagingError(.engineUnavailable, source: name, message: "the imaging processes were shut down")
        }
        return try job.result().get()
    }

    /// Starts up to `count` processes (no more than the pool's) before any source waits for one,
    /// so that they are ready when the first sources arrive: a process takes ~30 ms of CPU to
    /// start (mostly loading libvips' libraries), about what a photo takes to download.
    package func prestart(_ count: Int) {
        queue.prestart(count)
    }

    /// Stops every process once the sources already queued are rendered, and waits for them
    /// (each exits once its input closes).
    package func shutdown() {
        queue.close()
    }

    /// Stops at once (a run interrupted by Ctrl-C or SIGTERM): the processes are killed, the
    /// sources rendering or waiting fail, and no process starts again. Safe from any thread.
    package func terminate() {
        queue.terminate()
    }
}

/// One source waiting for, or rendering in, a process; its caller waits for ``result()``.
private final class Job: @unchecked Sendable {
    let bytes: Data
    let name: String
    let specs: [[VariantSpec]]
    let alphaSpecs: [[VariantSpec]]
    let placeholder: PlaceholderKinds
    /// What the render is estimated to need, in bytes.
    let memory: Int
    let onVariant: (@Sendable () -> Void)?
    private var outcome: Result<(SourceImageInfo, RenderedSource), ImagingError>?
    private let done = DispatchSemaphore(value: 0)

    init(bytes: Data, name: String, specs: [[VariantSpec]], alphaSpecs: [[VariantSpec]], placeholder: PlaceholderKinds,
         memory: Int, onVariant: (@Sendable () -> Void)?) {
        self.memory = memory
        self.bytes = bytes
        self.name = name
        self.specs = specs
        self.alphaSpecs = alphaSpecs
        self.placeholder = placeholder
        self.onVariant = onVariant
    }

    /// Called once, by the thread that rendered it.
    func finish(_ outcome: Result<(SourceImageInfo, RenderedSource), ImagingError>) {
        self.outcome = outcome
        done.signal()
    }

    func result() -> Result<(SourceImageInfo, RenderedSource), ImagingError> {
        done.wait()
        return outcome!  // set before the signal
    }
}

/// The sources waiting for a process, and the threads that drive the processes: one thread per
/// process, started when a source waits and no thread is free, up to the limit.
private final class JobQueue: @unchecked Sendable {
    private let command: [String]
    private let setup: ImagingWire.Setup
    private let driverLimit: Int
    private let condition = NSCondition()
    private var waiting: [Job] = []
    private var head = 0
    private var drivers = 0
    private var idleDrivers = 0
    /// The processes' memory: each driver's process, and the sources rendering.
    private var memory: MemoryAdmission
    private var closed = false
    /// Set by ``terminate()``: no process starts again and none is tried twice.
    private var terminated = false
    /// The processes rendering now, by pid, so that ``terminate()`` can kill them.
    private var live: Set<pid_t> = []

    init(command: [String], setup: ImagingWire.Setup, driverLimit: Int, memory: MemoryAdmission) {
        self.command = command
        self.setup = setup
        self.driverLimit = driverLimit
        self.memory = memory
    }

    /// Queues `job`; `false` once the queue is closed.
    func submit(_ job: Job) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        guard !closed else { return false }
        waiting.append(job)
        if idleDrivers > 0 {
            condition.signal()
        }
        // A driver that was signalled may not have woken yet: count what waits, not the signals.
        if waiting.count - head > idleDrivers, drivers < driverLimit, memory.allowsAnotherProcess(forRender: job.memory) {
            startDriver(startingProcess: false)
        }
        return true
    }

    /// Starts drivers, each starting its process at once, until there are `count` (at most the limit).
    func prestart(_ count: Int) {
        condition.lock()
        defer { condition.unlock() }
        guard !closed else { return }
        while drivers < min(memory.processesToPrestart(count), driverLimit) {
            startDriver(startingProcess: true)
        }
    }

    /// Called under the lock.
    private func startDriver(startingProcess: Bool) {
        drivers += 1
        memory.processStarted()
        let thread = Thread { [self] in drive(startingProcess: startingProcess) }
        thread.name = "warm-cache imaging process \(drivers)"
        thread.start()
    }

    /// Lets the drivers finish the queued sources, then stop their processes; returns when they have.
    func close() {
        condition.lock()
        closed = true
        condition.broadcast()
        while drivers > 0 { condition.wait() }
        condition.unlock()
    }

    /// Kills every process, fails the sources still waiting, and lets the drivers end.
    func terminate() {
        condition.lock()
        closed = true
        terminated = true
        let waitingJobs = waiting[head...]
        waiting.removeAll()
        head = 0
        for pid in live { _ = kill(pid, SIGKILL) }
        condition.broadcast()
        condition.unlock()
        for job in waitingJobs {
            job.finish(.failure(interrupted(job)))
        }
    }

    /// Starts a process for a driver, unless the queue was terminated; it is killed with the others.
    private func startProcess() throws -> ImagingProcess? {
        condition.lock()
        let stopped = terminated
        condition.unlock()
        guard !stopped else { return nil }
        let process = try ImagingProcess(command: command, setup: setup)
        condition.lock()
        live.insert(process.pid)
        if terminated { _ = kill(process.pid, SIGKILL) }  // terminated while it started
        condition.unlock()
        return process
    }

    /// Stops a driver's process (killing it first when `force`) and forgets it.
    @discardableResult
    private func stop(_ process: ImagingProcess, force: Bool = false) -> String {
        let ended = process.stop(force: force)
        condition.lock()
        live.remove(process.pid)
        condition.unlock()
        return ended
    }

    /// The next source, once there is memory for it (counted until ``finished(_:)``), or `nil`
    /// when the queue is closed and empty.
    private func next() -> Job? {
        condition.lock()
        defer { condition.unlock() }
        while head == waiting.count || !memory.admits(waiting[head].memory) {
            if head == waiting.count, closed { return nil }
            idleDrivers += 1
            condition.wait()
            idleDrivers -= 1
        }
        let job = waiting[head]
        memory.started(job.memory)
        head += 1
        if head > 64, head * 2 > waiting.count {
            waiting.removeFirst(head)
            head = 0
        }
        return job
    }

    /// One driver: renders sources in its process, one after another, until the queue closes.
    private func drive(startingProcess: Bool) {
        // A process that cannot start now is tried again, and its error reported, with the first source.
        var process: ImagingProcess? = startingProcess ? try? startProcess() : nil
        while let job = next() {
            let outcome = render(job, in: &process)
            finished(job)
            job.finish(outcome)
        }
        if let process { stop(process) }
        condition.lock()
        drivers -= 1
        memory.processStopped()
        condition.broadcast()
        condition.unlock()
    }

    /// Gives back a rendered source's memory; the drivers waiting for memory look again.
    private func finished(_ job: Job) {
        condition.lock()
        memory.finished(job.memory)
        condition.broadcast()
        condition.unlock()
    }

    private var isTerminated: Bool {
        condition.lock()
        defer { condition.unlock() }
        return terminated
    }

    private func interrupted(_ job: Job) -> ImagingError {
        ImagingError(.engineUnavailable, source: job.name, message: "the run was interrupted")
    }

    /// Renders `job` in `process` (started if there is none); a process that dies is replaced
    /// and the source sent once more, alone, to the new one.
    private func render(_ job: Job, in process: inout ImagingProcess?)
        -> Result<(SourceImageInfo, RenderedSource), ImagingError> {
        var ended: [String] = []
        for _ in 0..<2 {
            let current: ImagingProcess
            if let process {
                current = process
            } else {
                do {
                    guard let started = try startProcess() else { return .failure(interrupted(job)) }
                    current = started
                } catch {
                    return .failure(ImagingError(.engineUnavailable, source: job.name,
                        message: "cannot start an imaging process (\(command.joined(separator: " "))): \(PlainReason.of(error))"))
                }
                process = current
            }
            do {
                return try current.render(job.bytes, name: job.name, specs: job.specs, alphaSpecs: job.alphaSpecs,
                                          placeholder: job.placeholder, onVariant: job.onVariant)
            } catch {
                ended.append(stop(current, force: true))
                process = nil
            }
        }
        if isTerminated { return .failure(interrupted(job)) }
        return .failure(ImagingError(.processingFailed, source: job.name,
            message: "the imaging process ended while rendering this source, twice (\(ended.joined(separator: ", "))); "
                + "the other sources are not affected. Check the image with `vipsheader`, or report it with the file"))
    }
}
