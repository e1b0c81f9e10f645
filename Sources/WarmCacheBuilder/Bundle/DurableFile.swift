import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// File operations that survive a crash: data is flushed to disk before a rename makes it visible.
enum DurableFile {
    /// Writes `data` to a new file at `url` and flushes it.
    static func write(_ data: Data, to url: URL) throws {
        let descriptor = open(url.path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw posixError("creating \(url.lastPathComponent)") }
        defer { close(descriptor) }
        try data.withUnsafeBytes { buffer in
            var offset = 0
            while offset < buffer.count {
                let written = Foundation.write(descriptor, buffer.baseAddress! + offset, buffer.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    throw posixError("writing \(url.lastPathComponent)")
                }
                offset += written
            }
        }
        guard fsync(descriptor) == 0 else { throw posixError("flushing \(url.lastPathComponent)") }
    }

    /// Flushes an existing file.
    static func sync(_ url: URL) throws {
        let descriptor = open(url.path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw posixError("opening \(url.lastPathComponent)") }
        defer { close(descriptor) }
        guard fsync(descriptor) == 0 else { throw posixError("flushing \(url.lastPathComponent)") }
    }

    /// Atomically puts `source` at `destination` (replacing what was there) and flushes the directory.
    static func replace(_ destination: URL, with source: URL) throws {
        guard rename(source.path, destination.path) == 0 else {
            throw posixError("renaming \(source.lastPathComponent) to \(destination.lastPathComponent)")
        }
        let directory = open(destination.deletingLastPathComponent().path, O_RDONLY | O_CLOEXEC)
        if directory >= 0 {
            _ = fsync(directory)
            close(directory)
        }
    }

    #if os(Linux)
    /// Flushes every file and directory of the file system holding `url` (`syncfs(2)`, which
    /// Swift's Glibc module does not export, so it is looked up; `sync(2)` if absent): one call for
    /// the thousands of blobs a merge links, where `fsync` per file would take minutes.
    static func syncFileSystem(containing url: URL) throws {
        typealias SyncFS = @convention(c) (Int32) -> Int32
        guard let symbol = dlsym(nil, "syncfs") else {
            Glibc.sync()
            return
        }
        let descriptor = open(url.path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw posixError("opening \(url.lastPathComponent)") }
        defer { close(descriptor) }
        guard unsafeBitCast(symbol, to: SyncFS.self)(descriptor) == 0 else { throw posixError("flushing \(url.path)") }
    }
    #endif

    private static func posixError(_ action: String) -> NSError {
        let code = errno
        return NSError(domain: NSPOSIXErrorDomain, code: Int(code),
                       userInfo: [NSLocalizedDescriptionKey: "\(action): \(String(cString: strerror(code)))"])
    }
}
