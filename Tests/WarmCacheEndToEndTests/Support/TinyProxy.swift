import Foundation
import WarmCacheTestSupport

/// A real HTTP proxy (Debian's `tinyproxy`, installed by scripts/install-deps --tests) on 127.0.0.1,
/// started by a test and stopped afterwards.
final class TinyProxy: @unchecked Sendable {
    let port: Int
    let logURL: URL
    private let process: Process

    enum Problem: Error, CustomStringConvertible {
        case notInstalled, didNotStart(String)
        var description: String {
            switch self {
            case .notInstalled: return "tinyproxy is not installed; run scripts/install-deps --tests (Debian: tinyproxy-bin)"
            case .didNotStart(let log): return "tinyproxy did not start listening: \(log)"
            }
        }
    }

    static var executable: String? {
        ["/usr/bin/tinyproxy", "/usr/sbin/tinyproxy", "/usr/local/bin/tinyproxy", "/opt/homebrew/bin/tinyproxy"]
            .first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    /// Starts a proxy writing its files in `directory`; with `credentials`, it demands Basic auth.
    init(in directory: URL, credentials: (user: String, password: String)? = nil) async throws {
        guard let executable = Self.executable else { throw Problem.notInstalled }
        // Learn a free port from a server that is stopped again.
        let probe = try await FixtureServer.start()
        port = probe.url("/").port!
        try await probe.shutdown()
        logURL = directory.appendingPathComponent("tinyproxy.log")
        var config = """
            Port \(port)
            Listen 127.0.0.1
            Allow 127.0.0.1
            LogFile "\(logURL.path)"
            LogLevel Info
            PidFile "\(directory.appendingPathComponent("tinyproxy.pid").path)"
            MaxClients 64
            Timeout 60

            """
        if let credentials { config += "BasicAuth \(credentials.user) \(credentials.password)\n" }
        let configURL = directory.appendingPathComponent("tinyproxy.conf")
        try config.write(to: configURL, atomically: true, encoding: .utf8)
        process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = ["-d", "-c", configURL.path]
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        let deadline = Date().addingTimeInterval(30)
        while !Self.accepts(port: port) {
            guard Date() < deadline, process.isRunning else {
                stop()
                throw Problem.didNotStart(log)
            }
            try await Task.sleep(nanoseconds: 20_000_000)
        }
    }

    var log: String { (try? String(contentsOf: logURL, encoding: .utf8)) ?? "" }

    /// Stops the proxy with SIGKILL: a child started from the test process inherits its blocked
    /// signals, SIGTERM included, so `terminate()` would be ignored (and `waitUntilExit()` hang).
    func stop() {
        guard process.isRunning else { return }
        sendSignal(SIGKILL, to: process.processIdentifier)
        for _ in 0..<1000 where process.isRunning {
            usleep(10_000)
        }
    }

    private static func accepts(port: Int) -> Bool {
        let descriptor = socket(AF_INET, LoopbackSocket.streamType, 0)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
            }
        }
    }
}
