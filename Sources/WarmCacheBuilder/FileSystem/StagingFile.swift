import Foundation


/// A file-system failure while staging or installing a download, with the path and the
/// system's reason ("No space left on device").
struct FileSystemFailure: Error, CustomStringConvertible {
    let description: String

    /// Captures `errno` right after a failed call.
    init(_ operation: String, _ path: String, errno code: Int32 = errno) {
        description = "\(operation) \(path): \(String(cString: strerror(code)))"
    }
}

/// A hidden temporary file beside a download's destination, written with plain POSIX
/// calls so that durability is explicit.
///
/// Lifecycle: `create` → `write`… → `finish` (fsync + close) — or `discard` on any
/// failure, which closes and deletes it. Only a finished file is ever handed on (as a
/// ``StagedDownload``), so a half-written body never reaches a destination.
///
/// Writes are synchronous: they go to the page cache in microseconds, and keeping them
/// on the task avoids a thread hop per chunk. `fsync` runs once per file, off the
/// cooperative pool (see `finish`).
final class StagingFile {
    let url: URL
    private var descriptor: Int32

    /// Creates `.<destination name>.<random>.part` in `directory` (created if missing).
    init(in directory: URL, for destinationName: String) throws {
        try DurableFile.ensureFolder(atPath: directory.path)
        let name = ".\(destinationName).\(UInt64.random(in: 0...UInt64.max)).part"
        url = directory.appendingPathComponent(name)
        descriptor = open(url.path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        if descriptor < 0 { throw FileSystemFailure("cannot create", url.path) }
    }

    /// Appends `bytes`, retrying short writes and interrupted calls.
    func write(_ bytes: UnsafeRawBufferPointer) throws {
        guard var base = bytes.baseAddress else { return }
        var remaining = bytes.count
        while remaining > 0 {
            let written = systemWrite(descriptor, base, remaining)
            if written < 0 {
                if errno == EINTR { continue }
                throw FileSystemFailure("cannot write", url.path)
            }
            remaining -= written
            base += written
        }
    }

    /// Flushes the data to stable storage and closes the file.
    ///
    /// `fsync` can block for many milliseconds on a busy disk, so it runs as ``BlockingWork``:
    /// dozens of downloads finishing together must not stall every other task in the process.
    func finish() async throws {
        let descriptor = self.descriptor
        let path = url.path
        try await BlockingWork.run { () throws(FileSystemFailure) in
            if fsync(descriptor) != 0 { throw FileSystemFailure("cannot fsync", path) }
        }
        let result = close(descriptor)
        self.descriptor = -1
        if result != 0 { throw FileSystemFailure("cannot close", path) }
    }

    /// Closes (if still open) and deletes the file. Safe to call more than once.
    func discard() {
        if descriptor >= 0 {
            close(descriptor)
            descriptor = -1
        }
        unlink(url.path)
    }

    deinit {
        if descriptor >= 0 { discard() }
    }
}

/// `write(2)` under a name that does not clash with `StagingFile.write`.
private func systemWrite(_ fd: Int32, _ buffer: UnsafeRawPointer, _ count: Int) -> Int {
    write(fd, buffer, count)
}
