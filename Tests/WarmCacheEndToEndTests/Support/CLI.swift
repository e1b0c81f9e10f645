import Foundation

/// The built `warm-cache` executable, run as a child process.
enum CLI {
    /// The products directory holding the test bundle (where SwiftPM also puts `warm-cache`),
    /// else `<package>/.build/debug`.
    static let executable: URL? = {
        var candidates: [URL] = []
        let runner = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
        var directory = runner.deletingLastPathComponent()
        for _ in 0..<4 {  // the runner may sit inside an .xctest bundle on Darwin
            candidates.append(directory.appendingPathComponent("warm-cache"))
            directory = directory.deletingLastPathComponent()
        }
        let package = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent()
        candidates.append(package.appendingPathComponent(".build/debug/warm-cache"))
        return candidates.first { FileManager.default.isExecutableFile(atPath: $0.path) }
    }()

    struct Result: CustomStringConvertible {
        var status: Int32
        /// Killed by a signal (then `status` is the signal number).
        var signalled: Bool
        var stdout: String
        var stderr: String

        var description: String { "exit \(status)\(signalled ? " (signal)" : "")\nstdout:\n\(stdout)\nstderr:\n\(stderr)" }
    }

    /// Starts `warm-cache arguments` in `directory`, output going to files there (no pipes to fill).
    /// `environment` is added to this process's (proxy variables are removed unless given).
    /// - Parameter program: another program to run the same way instead of `warm-cache`.
    static func start(_ arguments: [String], in directory: URL, environment extra: [String: String] = [:],
                      program: URL? = nil) throws -> Running {
        guard let executable = program ?? executable else { throw CLIError.notBuilt }
        let id = UUID().uuidString
        let stdoutURL = directory.appendingPathComponent(".cli-\(id).out")
        let stderrURL = directory.appendingPathComponent(".cli-\(id).err")
        _ = FileManager.default.createFile(atPath: stdoutURL.path, contents: nil)
        _ = FileManager.default.createFile(atPath: stderrURL.path, contents: nil)
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        process.currentDirectoryURL = directory
        var environment = ProcessInfo.processInfo.environment
        environment["VIPS_WARNING"] = "0"
        environment["CI"] = "true"
        for name in ["HTTPS_PROXY", "https_proxy", "HTTP_PROXY", "http_proxy", "NO_PROXY", "no_proxy"] {
            environment[name] = nil
        }
        environment.merge(extra) { _, new in new }
        process.environment = environment
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = try FileHandle(forWritingTo: stdoutURL)
        process.standardError = try FileHandle(forWritingTo: stderrURL)
        let running = Running(process: process, stdoutURL: stdoutURL, stderrURL: stderrURL)
        process.terminationHandler = { _ in running.exited.signal() }
        try process.run()
        return running
    }

    /// Runs `warm-cache arguments` in `directory` to completion.
    static func run(_ arguments: [String], in directory: URL, environment: [String: String] = [:]) async throws
        -> Result {
        try await start(arguments, in: directory, environment: environment).wait()
    }

    final class Running: @unchecked Sendable {
        let process: Process
        let stdoutURL: URL
        let stderrURL: URL
        let exited = DispatchSemaphore(value: 0)

        init(process: Process, stdoutURL: URL, stderrURL: URL) {
            self.process = process
            self.stdoutURL = stdoutURL
            self.stderrURL = stderrURL
        }

        var pid: Int32 { process.processIdentifier }

        func kill(_ signal: Int32 = SIGKILL) {
            if process.isRunning { sendSignal(signal, to: process.processIdentifier) }
        }

        /// Waits for the exit off the cooperative pool; kills the child after `timeout` seconds.
        func wait(timeout: Double = 180) async throws -> Result {
            let exited = self.exited
            let finished = await Self.onOwnThread { exited.wait(timeout: .now() + timeout) == .success }
            if !finished {
                kill()
                _ = await Self.onOwnThread { exited.wait(timeout: .now() + 10) == .success }
                throw CLIError.timedOut(process.arguments ?? [])
            }
            let stdout = (try? String(contentsOf: stdoutURL, encoding: .utf8)) ?? ""
            let stderr = (try? String(contentsOf: stderrURL, encoding: .utf8)) ?? ""
            try? FileManager.default.removeItem(at: stdoutURL)
            try? FileManager.default.removeItem(at: stderrURL)
            return Result(status: process.terminationStatus, signalled: process.terminationReason == .uncaughtSignal,
                          stdout: stdout, stderr: stderr)
        }

        /// Runs a blocking wait on a thread of its own. On Dispatch's shared pool, which Linux grows by
        /// about a thread a second, the waits of tests running side by side held each other up: a
        /// 10-second run was seen taking a minute to be noticed on a busy machine.
        private static func onOwnThread(_ body: @escaping @Sendable () -> Bool) async -> Bool {
            await withCheckedContinuation { continuation in
                let thread = Thread { continuation.resume(returning: body()) }
                thread.start()
            }
        }
    }
}

enum CLIError: Error, CustomStringConvertible {
    case notBuilt
    case timedOut([String])

    var description: String {
        switch self {
        case .notBuilt: return "the warm-cache executable was not found next to the tests or in .build/debug; build it first"
        case .timedOut(let arguments): return "warm-cache \(arguments.joined(separator: " ")) did not exit in time"
        }
    }
}

/// `kill(2)`, under a name that does not clash with `Running.kill`.
func sendSignal(_ signal: Int32, to pid: Int32) {
    _ = kill(pid, signal)
}
