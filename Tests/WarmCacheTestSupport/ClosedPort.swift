import Foundation

/// A port on 127.0.0.1 that refuses every connection, held for the life of this object.
///
/// A socket is bound to it and never listens, so the kernel answers connection attempts with a
/// reset, and no other server (another test running at the same time) can take the port
/// meanwhile, as it could after starting a server and stopping it to learn a free port.
public final class ClosedPort {
    public let port: Int
    private let descriptor: Int32

    public init() throws {
        (descriptor, port) = try LoopbackSocket.bound()
    }

    deinit {
        close(descriptor)
    }

    public func url(_ path: String) -> URL {
        URL(string: "http://127.0.0.1:\(port)\(path)")!
    }
}
