import Foundation

/// A port on 127.0.0.1 that neither accepts nor refuses connections: a listener whose queue is
/// full, so the kernel drops new connection attempts unanswered, as a host behind a firewall that
/// drops packets does. For testing connect timeouts without leaving the machine.
public final class SilentPort {
    public let port: Int
    private var descriptors: [Int32] = []

    public init() throws {
        let (listener, port) = try LoopbackSocket.bound()
        descriptors.append(listener)
        self.port = port
        guard listen(listener, 0) == 0 else { throw LoopbackSocket.failure("listen") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = UInt16(port).bigEndian
        // Fill the queue (never accepted): later attempts get no answer at all.
        for _ in 0..<4 {
            let client = socket(AF_INET, LoopbackSocket.streamType, 0)
            guard client >= 0 else { throw LoopbackSocket.failure("socket") }
            descriptors.append(client)
            _ = fcntl(client, F_SETFL, O_NONBLOCK)
            _ = LoopbackSocket.withSocketAddress(&address) { connect(client, $0, $1) }
        }
        usleep(200_000)  // let the kernel finish the handshakes that fit in the queue
    }

    deinit {
        for descriptor in descriptors { close(descriptor) }
    }

    public func url(_ path: String) -> URL {
        URL(string: "http://127.0.0.1:\(port)\(path)")!
    }
}
