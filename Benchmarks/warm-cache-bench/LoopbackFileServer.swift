import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A static file server on 127.0.0.1 in a separate process (Python's threading `http.server`),
/// so serving costs are not counted in the tool's own CPU and memory.
final class LoopbackFileServer {
    let port: Int
    private let process: Process

    init(root: URL) throws {
        port = try Self.freePort()
        process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        // http.server's listen backlog is 5: with more connections at once, SYNs are dropped and
        // retried a second later, which would time the server instead of the tool. It speaks
        // HTTP/1.0 unless told otherwise, closing the connection after each response; image
        // servers keep connections alive, so this one does too (HTTP/1.1).
        let script = """
            import functools, http.server as s
            s.ThreadingHTTPServer.request_queue_size = 256
            class Handler(s.SimpleHTTPRequestHandler):
                protocol_version = "HTTP/1.1"
                def log_message(self, *args):
                    pass
            handler = functools.partial(Handler, directory=\(Self.pythonString(root.path)))
            s.ThreadingHTTPServer(("127.0.0.1", \(port)), handler).serve_forever()
            """
        process.arguments = ["python3", "-c", script]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        for _ in 0..<100 {
            if Self.accepts(port) { return }
            usleep(50_000)
        }
        kill(process.processIdentifier, SIGKILL)
        throw CocoaError(.fileReadUnknown, userInfo: [NSLocalizedDescriptionKey: "python3 http.server did not start"])
    }

    /// SIGKILL, not SIGTERM: a child spawned from a Dispatch thread inherits its blocked signal
    /// mask, so Python would never see a SIGTERM.
    func stop() {
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }

    private static func pythonString(_ text: String) -> String {
        "'" + text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "'", with: "\\'") + "'"
    }

    private static func freePort() throws -> Int {
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(socket) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer -> Bool in
                bind(socket, pointer, length) == 0 && getsockname(socket, pointer, &length) == 0
            }
        }
        guard bound else { throw CocoaError(.fileReadUnknown) }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    private static func accepts(_ port: Int) -> Bool {
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(socket) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
            }
        }
    }
}
