import Foundation

/// Sources' rows waiting to be staged (``IndexBuilder/deferRows()``): appended to a scratch file
/// as they come, each as its length and its ``SourceRows`` bytes, and read back in order. Memory
/// holds one write buffer and one read buffer, whatever the number of sources.
///
/// Not thread-safe (``IndexBuilder`` serialises access).
final class DeferredRows {
    let path: String
    private let descriptor: Int32
    private var pending: [UInt8] = []
    private(set) var sourceCount = 0
    private(set) var variantCount = 0

    private static let bufferSize = 1 << 20

    /// Creates an empty file at `path` (replacing any file there).
    init(path: String) throws {
        self.path = path
        descriptor = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw FileSystemFailure("cannot create", path) }
        pending.reserveCapacity(Self.bufferSize)
    }

    deinit {
        close(descriptor)
    }

    /// Appends one source's rows, with `variantCount` variants.
    func append(_ rows: SourceRows, variantCount: Int) throws {
        let count = UInt32(rows.bytes.count)
        withUnsafeBytes(of: count.littleEndian) { pending.append(contentsOf: $0) }
        pending.append(contentsOf: rows.bytes)
        sourceCount += 1
        self.variantCount += variantCount
        if pending.count >= Self.bufferSize { try writePending() }
    }

    /// The file's bytes are not what was appended (a disk or file-system fault).
    struct Damaged: Error, CustomStringConvertible {
        let path: String
        var description: String {
            "the index rows waiting in \(path) are damaged (a disk or file-system fault?); run the warm again"
        }
    }

    /// Calls `body` with each source's rows, in the order they were appended. Throws ``Damaged``
    /// when the file does not read back as appended rows.
    func forEach(_ body: (SourceRows) throws -> Void) throws {
        do {
            try readBack(body)
        } catch is SourceRows.Malformed {
            throw Damaged(path: path)
        }
    }

    private func readBack(_ body: (SourceRows) throws -> Void) throws {
        try writePending()
        guard lseek(descriptor, 0, SEEK_SET) == 0 else { throw FileSystemFailure("cannot read", path) }
        var buffer: [UInt8] = []
        var start = 0
        var chunk = [UInt8](repeating: 0, count: Self.bufferSize)
        while true {
            let got = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            guard got >= 0 else {
                if errno == EINTR { continue }
                throw FileSystemFailure("cannot read", path)
            }
            if got == 0 { break }
            buffer.removeFirst(start)
            start = 0
            buffer.append(contentsOf: chunk[0..<got])
            while buffer.count - start >= 4 {
                let length = Int(buffer[start]) | Int(buffer[start + 1]) << 8 | Int(buffer[start + 2]) << 16
                    | Int(buffer[start + 3]) << 24
                guard buffer.count - start - 4 >= length else { break }
                try body(SourceRows(bytes: Array(buffer[start + 4..<start + 4 + length])))
                start += 4 + length
            }
        }
        guard start == buffer.count else { throw SourceRows.Malformed() }
    }

    /// Removes the file.
    func remove() {
        unlink(path)
    }

    private func writePending() throws {
        var offset = 0
        while offset < pending.count {
            let written = pending[offset...].withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
            guard written > 0 else {
                if written < 0, errno == EINTR { continue }
                throw FileSystemFailure("cannot write", path)
            }
            offset += written
        }
        pending.removeAll(keepingCapacity: true)
    }
}
