import Foundation
import WarmCache

/// File operations that survive a crash: data is flushed to disk before a rename makes it visible.
///
/// Files that many are written in one run (blobs, cache records) can be written unflushed and
/// flushed together once, with ``flushFileSystem(containing:)``, before anything that depends on
/// them is published.
enum DurableFile {
    /// Writes `data` to a new file at `url`, and flushes it unless `flush` is `false`.
    static func write(_ data: Data, to url: URL, flush: Bool = true) throws {
        try write(data, toPath: url.path, flush: flush)
    }

    /// Writes `data` to a new file at `path`, and flushes it unless `flush` is `false`. Hot paths
    /// (a record or blob per source) pass paths: building and reading back a `URL` costs more
    /// than the write.
    static func write(_ data: Data, toPath path: String, flush: Bool = true) throws {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw posixError("creating \(lastComponent(path))") }
        defer { close(descriptor) }
        try data.withUnsafeBytes { buffer in
            var offset = 0
            while offset < buffer.count {
                let written = Foundation.write(descriptor, buffer.baseAddress! + offset, buffer.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    throw posixError("writing \(lastComponent(path))")
                }
                offset += written
            }
        }
        guard !flush || fsync(descriptor) == 0 else { throw posixError("flushing \(lastComponent(path))") }
    }

    /// Renames `source` to `destination` (replacing what was there), atomically but without
    /// flushing: after a power loss the rename may be lost, never half done.
    static func move(_ source: URL, to destination: URL) throws {
        try move(atPath: source.path, toPath: destination.path)
    }

    /// ``move(_:to:)`` with paths.
    static func move(atPath source: String, toPath destination: String) throws {
        guard rename(source, destination) == 0 else {
            throw posixError("renaming \(lastComponent(source)) to \(lastComponent(destination))")
        }
    }

    /// Makes sure the folder at `path` exists: one `mkdir` when its parent does (the usual case
    /// for a cache's fan-out folders), creating the parents too otherwise.
    static func ensureFolder(atPath path: String) throws {
        if mkdir(path, 0o755) != 0, errno != EEXIST {
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        }
    }

    /// The whole content of the regular file at `path`, or `nil` if it cannot be read. For the
    /// small files read once per source (records, memo entries, thumbnails being checked): one
    /// `open`, `fstat`, `read` and `close`, no mapping.
    static func contents(atPath path: String) -> Data? {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0, status.st_mode & S_IFMT == S_IFREG else { return nil }
        var data = Data(count: Int(status.st_size))
        let complete = data.withUnsafeMutableBytes { buffer -> Bool in
            var offset = 0
            while offset < buffer.count {
                let count = read(descriptor, buffer.baseAddress! + offset, buffer.count - offset)
                if count < 0, errno == EINTR { continue }
                guard count > 0 else { return false }
                offset += count
            }
            return true
        }
        return complete ? data : nil
    }

    private static func lastComponent(_ path: String) -> Substring {
        path.split(separator: "/").last ?? Substring(path)
    }

    /// Flushes every file and directory of the file system holding `url` with one `syncfs(2)`.
    /// Returns `false` where that call does not exist (anything but Linux): flush file by file.
    static func flushFileSystem(containing url: URL) throws -> Bool {
        #if os(Linux)
        let descriptor = open(url.path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw posixError("opening \(url.lastPathComponent)") }
        defer { close(descriptor) }
        guard LibC.syncfs(descriptor) == 0 else { throw posixError("flushing the file system of \(url.path)") }
        return true
        #else
        return false
        #endif
    }

    /// Flushes a directory's entries (the names created or renamed in it).
    static func syncDirectory(_ url: URL) {
        let directory = open(url.path, O_RDONLY | O_CLOEXEC)
        if directory >= 0 {
            _ = fsync(directory)
            close(directory)
        }
    }

    /// Flushes an existing file.
    static func sync(_ url: URL) throws {
        let descriptor = open(url.path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw posixError("opening \(url.lastPathComponent)") }
        defer { close(descriptor) }
        guard fsync(descriptor) == 0 else { throw posixError("flushing \(url.lastPathComponent)") }
    }

    /// Flushes an existing file to the storage medium itself, with everything flushed before it
    /// (``LibC/flushToStorage(_:)``): for the index a publication depends on. Slower than
    /// ``sync(_:)`` on Apple platforms, so called once per publication.
    static func syncToStorage(_ url: URL) throws {
        let descriptor = open(url.path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw posixError("opening \(url.lastPathComponent)") }
        defer { close(descriptor) }
        guard LibC.flushToStorage(descriptor) else { throw posixError("flushing \(url.lastPathComponent)") }
    }

    /// Atomically puts `source` at `destination` (replacing what was there) and flushes the directory.
    static func replace(_ destination: URL, with source: URL) throws {
        try move(source, to: destination)
        syncDirectory(destination.deletingLastPathComponent())
    }

    private static func posixError(_ action: String) -> NSError {
        let code = errno
        return NSError(domain: NSPOSIXErrorDomain, code: Int(code),
                       userInfo: [NSLocalizedDescriptionKey: "\(action): \(String(cString: strerror(code)))"])
    }
}
