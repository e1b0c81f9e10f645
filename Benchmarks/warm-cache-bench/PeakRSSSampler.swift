import Foundation
import WarmCache

/// Watches a running child's own peak resident set (`VmHWM` in `/proc/<pid>/status`) and that of
/// the processes it starts (a warm's imaging processes), every 20 ms until it ends.
///
/// `wait4`'s `ru_maxrss` is not the child's own figure on Linux: the kernel carries the spawning
/// address space's high-water mark over `exec`, so a child of this benchmark reports at least the
/// benchmark's own size at that moment (a 400 MB parent makes `/bin/true` "peak" at 400 MB).
/// `VmHWM` belongs to the child's address space alone and only grows, so the last reading is its
/// peak up to then; growth in the last 20 ms before it exits can be missed.
final class PeakRSSSampler: @unchecked Sendable {
    private let pid: Int32
    private let lock = NSLock()
    private var own: Int = 0
    private var children: [Int32: Int] = [:]
    private var running = true
    private let finished = DispatchSemaphore(value: 0)

    init(pid: Int32) {
        self.pid = pid
        let thread = Thread { [self] in
            while isRunning {
                sample()
                Thread.sleep(forTimeInterval: 0.02)
            }
            finished.signal()
        }
        thread.start()
    }

    /// Stops sampling. Returns the child's own peak and the sum of its children's peaks, in KiB
    /// (`nil` where `/proc` had nothing: not Linux).
    func stop() -> (own: Int?, children: Int) {
        lock.lock()
        running = false
        lock.unlock()
        finished.wait()
        lock.lock()
        defer { lock.unlock() }
        return (own > 0 ? own : nil, children.values.reduce(0, +))
    }

    private var isRunning: Bool {
        lock.lock()
        defer { lock.unlock() }
        return running
    }

    private func sample() {
        let mine = Self.highWaterKiB(of: pid)
        var theirs: [Int32: Int] = [:]
        for child in Self.children(of: pid) {
            if let peak = Self.highWaterKiB(of: child) { theirs[child] = peak }
        }
        lock.lock()
        defer { lock.unlock() }
        if let mine { own = max(own, mine) }
        for (child, peak) in theirs { children[child] = max(children[child] ?? 0, peak) }
    }

    /// `VmHWM` of a live process, in KiB (absent for a zombie, and off Linux).
    static func highWaterKiB(of pid: Int32) -> Int? {
        LibC.processStatusKiB(String(pid), "VmHWM")
    }

    static func children(of pid: Int32) -> [Int32] {
        LibC.children(of: pid)
    }
}
