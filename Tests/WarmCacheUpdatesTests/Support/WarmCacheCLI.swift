import Foundation
import Testing

/// The built `warm-cache` executable, run as a child process.
enum WarmCacheCLI {
    /// The built `warm-cache` beside the test runner (SwiftPM's products directory), if any.
    static let executable: URL? = {
        var directory = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
            .deletingLastPathComponent()
        for _ in 0..<4 {
            let candidate = directory.appendingPathComponent("warm-cache")
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
            directory = directory.deletingLastPathComponent()
        }
        return nil
    }()

    struct Output: CustomStringConvertible {
        var status: Int32
        var stdout: String
        var stderr: String
        /// Both streams, as a terminal shows them.
        var output: String { stdout + stderr }
        var description: String { "exit \(status)\nstdout:\n\(stdout)\nstderr:\n\(stderr)" }
    }

    /// Runs `warm-cache arguments`, waiting off the cooperative pool so tests beside it keep running.
    /// `environment` is added to this process's (without any `WARM_CACHE_SIGNING_KEY` of its own).
    static func run(_ arguments: [String], environment: [String: String] = [:]) async throws -> Output {
        let executable = try #require(executable, "build warm-cache first (swift build --build-tests)")
        return try await withCheckedThrowingContinuation { continuation in
            // A thread of its own: Dispatch's shared pool grows by about a thread a second on Linux,
            // so waits parked there hold up the tests beside them.
            Thread {
                continuation.resume(with: Swift.Result {
                    try runBlocking(executable, arguments, environment: environment)
                })
            }.start()
        }
    }

    /// Runs on the calling thread; output goes through files (no pipe can fill up).
    private static func runBlocking(_ executable: URL, _ arguments: [String], environment: [String: String]) throws
        -> Output
    {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("wc-cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let stdoutURL = folder.appendingPathComponent("stdout")
        let stderrURL = folder.appendingPathComponent("stderr")
        _ = FileManager.default.createFile(atPath: stdoutURL.path, contents: nil)
        _ = FileManager.default.createFile(atPath: stderrURL.path, contents: nil)
        let stdout = try FileHandle(forWritingTo: stdoutURL)
        let stderr = try FileHandle(forWritingTo: stderrURL)
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        var variables = ProcessInfo.processInfo.environment
        variables["WARM_CACHE_SIGNING_KEY"] = nil
        variables.merge(environment) { _, new in new }
        process.environment = variables
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = stdout
        process.standardError = stderr
        try process.run()
        process.waitUntilExit()
        try stdout.close()
        try stderr.close()
        return Output(status: process.terminationStatus, stdout: try String(contentsOf: stdoutURL, encoding: .utf8),
                      stderr: try String(contentsOf: stderrURL, encoding: .utf8))
    }
}
