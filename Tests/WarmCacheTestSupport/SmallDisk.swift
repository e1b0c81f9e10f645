import Foundation

/// A small tmpfs a test mounts on a folder of its own, to run out of disk space (or inodes)
/// for real. Mounting needs root (CI runs as root); elsewhere ``mount(at:size:inodes:)`` throws
/// ``Unavailable`` with the reason, for the test to skip with.
///
/// ```swift
/// let disk = try SmallDisk.mount(at: scratch.appendingPathComponent("disk"), size: "2m")
/// defer { disk.unmount() }
/// try disk.fill(leaving: 100_000)
/// ```
public final class SmallDisk: Sendable {
    public let url: URL

    /// Why no small disk could be mounted.
    public struct Unavailable: Error, CustomStringConvertible {
        public let description: String
    }

    private init(url: URL) {
        self.url = url
    }

    /// Mounts a tmpfs of `size` (`mount -o size=`, e.g. "2m") with at most `inodes` files and
    /// folders, if given, on `folder` (created).
    public static func mount(at folder: URL, size: String, inodes: Int? = nil) throws -> SmallDisk {
        guard getuid() == 0 else {
            throw Unavailable(description: "mounting a small tmpfs needs root (CI runs the tests as root)")
        }
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let options = "size=\(size)" + (inodes.map { ",nr_inodes=\($0)" } ?? "")
        let (status, output) = run("/bin/mount", ["-t", "tmpfs", "-o", options, "tmpfs", folder.path])
        guard status == 0 else {
            throw Unavailable(description: "mount -t tmpfs -o \(options) failed (\(output.trimmingCharacters(in: .whitespacesAndNewlines))); "
                + "a container without CAP_SYS_ADMIN cannot mount")
        }
        return SmallDisk(url: folder)
    }

    /// Bytes free on the disk.
    public var freeBytes: Int {
        var info = statvfs()
        guard statvfs(url.path, &info) == 0 else { return 0 }
        return Int(info.f_bavail) * Int(info.f_frsize)
    }

    /// Free inodes on the disk.
    public var freeInodes: Int {
        var info = statvfs()
        guard statvfs(url.path, &info) == 0 else { return 0 }
        return Int(info.f_favail)
    }

    /// Writes a filler file so that about `bytes` stay free; returns its URL (delete it to free the space).
    @discardableResult
    public func fill(leaving bytes: Int, name: String = "filler") throws -> URL {
        let file = url.appendingPathComponent(name)
        let size = max(0, freeBytes - bytes)
        FileManager.default.createFile(atPath: file.path, contents: nil)
        let handle = try FileHandle(forWritingTo: file)
        defer { try? handle.close() }
        let chunk = Data(repeating: 0x5A, count: 64 * 1024)
        var written = 0
        while written < size {
            let piece = min(chunk.count, size - written)
            try handle.write(contentsOf: chunk.prefix(piece))
            written += piece
        }
        return file
    }

    /// Unmounts the disk (lazily, so a file still open cannot keep it).
    public func unmount() {
        _ = Self.run("/bin/umount", ["-l", url.path])
    }

    private static func run(_ program: String, _ arguments: [String]) -> (Int32, String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: program)
        process.arguments = arguments
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("small-disk-\(UUID().uuidString)")
        FileManager.default.createFile(atPath: output.path, contents: nil)
        defer { try? FileManager.default.removeItem(at: output) }
        guard let handle = try? FileHandle(forWritingTo: output) else { return (-1, "cannot capture output") }
        process.standardOutput = handle
        process.standardError = handle
        do { try process.run() } catch { return (-1, "\(error)") }
        process.waitUntilExit()
        try? handle.close()
        return (process.terminationStatus, (try? String(contentsOf: output, encoding: .utf8)) ?? "")
    }
}
