import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A port on 127.0.0.1 that neither accepts nor refuses connections: a listener whose queue is
/// full, so the kernel drops new connection attempts unanswered, as a host behind a firewall that
/// drops packets does. For testing connect timeouts without leaving the machine.
public final class SilentPort {
    public let port: Int
    private var descriptors: [Int32] = []

    public init() throws {
        let listener = socket(AF_INET, Self.streamType, 0)
        guard listener >= 0 else { throw Self.failure("socket") }
        descriptors.append(listener)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        guard Self.withSocketAddress(&address, { bind(listener, $0, $1) }) == 0 else { throw Self.failure("bind") }
        guard listen(listener, 0) == 0 else { throw Self.failure("listen") }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        guard withUnsafeMutablePointer(to: &address, {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(listener, $0, &length) }
        }) == 0 else { throw Self.failure("getsockname") }
        port = Int(UInt16(bigEndian: address.sin_port))
        // Fill the queue (never accepted): later attempts get no answer at all.
        for _ in 0..<4 {
            let client = socket(AF_INET, Self.streamType, 0)
            guard client >= 0 else { throw Self.failure("socket") }
            descriptors.append(client)
            _ = fcntl(client, F_SETFL, O_NONBLOCK)
            _ = Self.withSocketAddress(&address) { connect(client, $0, $1) }
        }
        usleep(200_000)  // let the kernel finish the handshakes that fit in the queue
    }

    deinit {
        for descriptor in descriptors { close(descriptor) }
    }

    public func url(_ path: String) -> URL {
        URL(string: "http://127.0.0.1:\(port)\(path)")!
    }

    #if canImport(Glibc)
    private static let streamType = Int32(SOCK_STREAM.rawValue)
    #else
    private static let streamType = SOCK_STREAM
    #endif

    private static func withSocketAddress<T>(
        _ address: inout sockaddr_in, _ body: (UnsafePointer<sockaddr>, socklen_t) -> T
    ) -> T {
        withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { body($0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
    }

    private static func failure(_ call: String) -> NSError {
        NSError(domain: NSPOSIXErrorDomain, code: Int(errno),
                userInfo: [NSLocalizedDescriptionKey: "\(call): \(String(cString: strerror(errno)))"])
    }
}
