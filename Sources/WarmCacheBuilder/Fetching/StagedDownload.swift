import Foundation


/// A complete, verified, fsynced body in a hidden staging file, waiting to be installed
/// at one or more destinations (several when coalesced callers asked for different ones).
///
/// The staging file is deleted when the last reference to this object goes away, so it
/// cannot leak however the download ends: installed, failed to install, or dropped
/// because a timeout raced with success.
final class StagedDownload: Sendable {
    let url: URL
    let byteCount: Int
    let sha256: String
    let sniffedFormat: SniffedFormat
    /// Whether a destination already shares the staged inode (see `install`).
    private let linked = Locked(false)

    init(url: URL, byteCount: Int, sha256: String, sniffedFormat: SniffedFormat) {
        self.url = url
        self.byteCount = byteCount
        self.sha256 = sha256
        self.sniffedFormat = sniffedFormat
    }

    deinit {
        unlink(url.path)
    }

    /// Atomically makes the staged bytes appear at `destination`, replacing any file there.
    ///
    /// The first destination gets a hard link (instant, no copy); later ones, or any
    /// destination on another volume, get a copy fsynced under a temporary name, so two
    /// destinations never share one inode (writing one would change the other). Either
    /// way a `rename` then swaps the file in: readers see the old file or the whole new
    /// one, never a partial write.
    func install(at destination: URL) throws {
        let directory = destination.deletingLastPathComponent()
        try DurableFile.ensureFolder(atPath: directory.path)
        let temporary = directory.appendingPathComponent(
            ".\(destination.lastPathComponent).\(UInt64.random(in: 0...UInt64.max)).part")
        do {
            let mayLink = linked.withLock { linked in
                defer { linked = true }
                return !linked
            }
            if !mayLink || link(url.path, temporary.path) != 0 {
                try copyDurably(to: temporary)
            }
            if rename(temporary.path, destination.path) != 0 {
                throw FileSystemFailure("cannot move into place", destination.path)
            }
        } catch {
            unlink(temporary.path)
            throw error
        }
    }

    /// Fallback when hard links are impossible (another volume, or a file system
    /// without them): a plain copy, fsynced before it is renamed into place.
    private func copyDurably(to target: URL) throws {
        let input = open(url.path, O_RDONLY | O_CLOEXEC)
        guard input >= 0 else { throw FileSystemFailure("cannot read", url.path) }
        defer { close(input) }
        let output = open(target.path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard output >= 0 else { throw FileSystemFailure("cannot create", target.path) }
        defer { close(output) }

        var buffer = [UInt8](repeating: 0, count: 256 * 1024)
        var copied = 0
        // Bounded by the staged file's known size.
        while copied < byteCount {
            let count = buffer.withUnsafeMutableBytes { read(input, $0.baseAddress, $0.count) }
            if count < 0, errno == EINTR { continue }
            if count < 0 { throw FileSystemFailure("cannot read", url.path) }
            if count == 0 { break }
            var offset = 0
            while offset < count {
                let written = buffer.withUnsafeBytes { write(output, $0.baseAddress! + offset, count - offset) }
                if written < 0, errno == EINTR { continue }
                if written < 0 { throw FileSystemFailure("cannot write", target.path) }
                offset += written
            }
            copied += count
        }
        guard copied == byteCount else {
            throw FileSystemFailure("staged file shrank while copying", url.path, errno: EIO)
        }
        if fsync(output) != 0 { throw FileSystemFailure("cannot fsync", target.path) }
    }
}
