import Foundation
import WarmCache

/// Runs commands as child processes and measures each one on its own: wall time, CPU from the
/// kernel's accounting of that child (`wait4`), and its own peak RSS read from `/proc` while it runs
/// (``PeakRSSSampler``: `wait4`'s figure would include this process's size), so a figure is the
/// command's own, not this process's nor another child's.
enum Subprocess {
    /// How a child ended.
    struct Outcome {
        var seconds: Double
        /// CPU time the child used (user + system), in seconds: on a shared machine, the part of
        /// a wall time that does not depend on the other load.
        var cpuSeconds: Double
        /// The child's peak resident set size, in MiB.
        var peakRSSMiB: Double
        /// The peaks of the processes the child started (a warm's imaging processes), summed, in
        /// MiB; shared library pages count in each.
        var childrenPeakRSSMiB: Double = 0
        /// The exit status, or the signal number when `signal` is true.
        var status: Int32
        /// Killed by a signal (a crash: SIGSEGV, SIGABRT, ...).
        var signalled: Bool

        var succeeded: Bool { !signalled && status == 0 }

        var summary: String {
            signalled ? "killed by signal \(status) (\(String(cString: strsignal(status))))" : "exit \(status)"
        }
    }

    /// Runs `path arguments` to completion with its output discarded; anything but exit 0 throws.
    static func run(_ path: String, _ arguments: [String]) throws {
        let outcome = try measure(path, arguments)
        guard outcome.succeeded else {
            throw CocoaError(.fileWriteUnknown, userInfo: [
                NSLocalizedDescriptionKey: "\(path) \(arguments.joined(separator: " ")): \(outcome.summary)",
            ])
        }
    }

    /// Where a child's standard output and error go.
    enum Output {
        case discard
        /// This process's own streams.
        case inherit
        /// Appended to a file.
        case file(URL)
    }

    /// Runs `path arguments` to completion and measures it. `environment` entries are added to
    /// this process's environment.
    static func measure(_ path: String, _ arguments: [String], environment: [String: String] = [:],
                        output: Output = .discard) throws -> Outcome {
        try start(path, arguments, environment: environment, output: output).wait()
    }

    /// A started child, measured when ``wait()`` reaps it.
    struct Running {
        let pid: pid_t
        let started: UInt64
        let sampler: PeakRSSSampler

        /// Waits for this child (only this one) and measures it: seconds from its start until it
        /// is reaped, and its own peak RSS.
        func wait() -> Outcome {
            var status: Int32 = 0
            var usage = rusage()
            while wait4(pid, &status, 0, &usage) < 0 && errno == EINTR {}
            let seconds = Double(Measurement.now() - started) / 1e9
            let sampled = sampler.stop()
            let signal = status & 0x7f
            let peak = LibC.maxRSSMiB(usage)
            let cpu = Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec)
                + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
            return Outcome(seconds: seconds, cpuSeconds: cpu, peakRSSMiB: sampled.own.map { Double($0) / 1024 } ?? peak,
                           childrenPeakRSSMiB: Double(sampled.children) / 1024,
                           status: signal == 0 ? (status >> 8) & 0xff : signal, signalled: signal != 0)
        }
    }

    /// Starts `path arguments` without waiting for it, so several children can run at once.
    /// `environment` entries are added to this process's environment.
    static func start(_ path: String, _ arguments: [String], environment: [String: String] = [:],
                      output: Output = .discard) throws -> Running {
        var merged = ProcessInfo.processInfo.environment
        merged.merge(environment) { _, new in new }
        let argv = ([path] + arguments).map { strdup($0) } + [nil]
        let envp = merged.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            argv.forEach { free($0) }
            envp.forEach { free($0) }
        }

        let started = Measurement.now()
        let pid: pid_t
        switch LibC.spawn(argv, envp, output: output) {
        case .success(let child): pid = child
        case .failure(let failure):
            throw CocoaError(.fileReadUnknown, userInfo: [
                NSLocalizedDescriptionKey: "cannot start \(path): \(failure.text)",
            ])
        }
        return Running(pid: pid, started: started, sampler: PeakRSSSampler(pid: pid))
    }
}
