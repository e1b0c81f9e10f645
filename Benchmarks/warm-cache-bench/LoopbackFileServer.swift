import Foundation
import WarmCacheTestSupport

/// A static file server on 127.0.0.1 in a separate process, so serving costs are not counted
/// in the tool's own CPU and memory: nginx when it is installed (`scripts/install-deps --tests` brings
/// it), as image servers are, else Python's threading `http.server`.
///
/// On a 2-core machine the server shares the cores with the tool, so its cost per request shows
/// in the tool's figures: Python spends about a millisecond of CPU per request, nginx a few
/// microseconds. Both send `Last-Modified` and answer `If-Modified-Since` with 304s; nginx also
/// sends an `ETag`.
final class LoopbackFileServer {
    let port: Int
    /// `nginx 1.22.1` or `python3 http.server`, for the benchmark's heading.
    let name: String
    private let process: Process
    private let scratch: URL?

    static let nginxPath = "/usr/sbin/nginx"

    init(root: URL) throws {
        port = try Self.freePort()
        process = Process()
        if FileManager.default.isExecutableFile(atPath: Self.nginxPath) {
            let scratch = FileManager.default.temporaryDirectory
                .appendingPathComponent("warm-cache-bench-nginx-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
            let configuration = scratch.appendingPathComponent("nginx.conf")
            try Self.nginxConfiguration(root: root.path, port: port, scratch: scratch.path)
                .write(to: configuration, atomically: true, encoding: .utf8)
            process.executableURL = URL(fileURLWithPath: Self.nginxPath)
            process.arguments = ["-p", scratch.path, "-e", scratch.appendingPathComponent("error.log").path,
                                 "-c", configuration.path]
            name = "nginx"
            self.scratch = scratch
        } else {
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
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            process.arguments = ["python3", "-c", script]
            name = "python3 http.server (install nginx for figures comparable to a real image server)"
            scratch = nil
        }
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        for _ in 0..<100 {
            if Self.accepts(port) { return }
            usleep(50_000)
        }
        kill(process.processIdentifier, SIGKILL)
        throw CocoaError(.fileReadUnknown, userInfo: [NSLocalizedDescriptionKey: "the loopback file server (\(name)) did not start"])
    }

    /// SIGKILL, not SIGTERM: a child spawned from a Dispatch thread inherits its blocked signal
    /// mask, so the server would never see a SIGTERM. nginx runs without a master process, so
    /// the one process is all there is.
    func stop() {
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        if let scratch { try? FileManager.default.removeItem(at: scratch) }
    }

    /// One worker in the foreground, keep-alive connections, no access log, every temporary
    /// path in `scratch` (nothing under /var is touched).
    private static func nginxConfiguration(root: String, port: Int, scratch: String) -> String {
        """
        daemon off;
        master_process off;
        worker_processes 1;
        pid \(scratch)/nginx.pid;
        error_log \(scratch)/error.log warn;
        events { worker_connections 4096; }
        http {
            access_log off;
            sendfile on;
            tcp_nopush on;
            keepalive_requests 1000000;
            keepalive_timeout 120s;
            types { image/jpeg jpg jpeg; image/png png; image/webp webp; }
            default_type application/octet-stream;
            client_body_temp_path \(scratch)/body;
            proxy_temp_path \(scratch)/proxy;
            fastcgi_temp_path \(scratch)/fastcgi;
            uwsgi_temp_path \(scratch)/uwsgi;
            scgi_temp_path \(scratch)/scgi;
            server {
                listen 127.0.0.1:\(port);
                root \(root);
            }
        }

        """
    }

    private static func pythonString(_ text: String) -> String {
        "'" + text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "'", with: "\\'") + "'"
    }

    private static func freePort() throws -> Int {
        let socket = socket(AF_INET, LoopbackSocket.streamType, 0)
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
        let socket = socket(AF_INET, LoopbackSocket.streamType, 0)
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
