import Foundation

/// The socket calls the loopback test ports share.
package enum LoopbackSocket {
    #if canImport(Glibc)
    package static let streamType = Int32(SOCK_STREAM.rawValue)
    #else
    package static let streamType = SOCK_STREAM
    #endif

    static func withSocketAddress<T>(
        _ address: inout sockaddr_in, _ body: (UnsafePointer<sockaddr>, socklen_t) -> T
    ) -> T {
        withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { body($0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
    }

    static func failure(_ call: String) -> NSError {
        NSError(domain: NSPOSIXErrorDomain, code: Int(errno),
                userInfo: [NSLocalizedDescriptionKey: "\(call): \(String(cString: strerror(errno)))"])
    }

    /// A socket bound to a free port on 127.0.0.1, and that port.
    static func bound() throws -> (descriptor: Int32, port: Int) {
        let descriptor = socket(AF_INET, streamType, 0)
        guard descriptor >= 0 else { throw failure("socket") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        guard withSocketAddress(&address, { bind(descriptor, $0, $1) }) == 0 else {
            close(descriptor)
            throw failure("bind")
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        guard withUnsafeMutablePointer(to: &address, {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
        }) == 0 else {
            close(descriptor)
            throw failure("getsockname")
        }
        return (descriptor, Int(UInt16(bigEndian: address.sin_port)))
    }
}
