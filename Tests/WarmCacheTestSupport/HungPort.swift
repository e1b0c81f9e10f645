import Foundation

/// A port on 127.0.0.1 that takes connections but never answers: a listener that never accepts,
/// so the kernel completes each handshake and keeps the request unread, as a hung server (or a
/// firewall that accepts and drops) does. For testing request timeouts without leaving the machine.
public final class HungPort {
    public let port: Int
    private let listener: Int32

    public init() throws {
        let (listener, port) = try LoopbackSocket.bound()
        self.listener = listener
        self.port = port
        guard listen(listener, 16) == 0 else { throw LoopbackSocket.failure("listen") }
    }

    deinit {
        close(listener)
    }

    public func url(_ path: String) -> URL {
        URL(string: "http://127.0.0.1:\(port)\(path)")!
    }
}
