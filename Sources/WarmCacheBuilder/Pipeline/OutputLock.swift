import Foundation
import WarmCache

/// An exclusive lock on one bundle output, so two runs never write the same bundle at once.
///
/// The lock is `flock(2)` on a file in a per-user folder of the system's temporary directory
/// (`$TMPDIR/warm-cache-locks-<uid>/<hash of the bundle's path>.lock`), never beside the bundle:
/// the bundle's folder is often an app's resources, and whatever sits there ships. It is keyed
/// by the bundle's absolute path (symbolic links in its folder resolved), not by the cache
/// directory, so two runs with different caches still exclude each other. The kernel releases
/// it when the holder exits, however it exits (`kill -9` included), so a stale lock cannot block
/// the next run. The file holds the holder's pid, host, start time and bundle path, for the
/// message the second run prints.
///
/// The holder deletes the file before it lets go, so the folder does not collect one file per
/// bundle path ever warmed. That is safe because a taker checks, once it holds the lock, that
/// the path still names the file it locked (same device and inode); if the holder unlinked it
/// in between, the taker's lock is on a dead file and it starts again on the new one. Only a
/// `kill -9`ed run leaves its file behind, and the next run on that bundle reuses and removes it.
package final class OutputLock {
    let url: URL
    private let descriptor: Int32

    /// Where the lock for `bundleURL` lives.
    package static func lockURL(for bundleURL: URL) -> URL {
        let bundle = bundleURL.standardizedFileURL
        let parent = bundle.deletingLastPathComponent()
        let canonicalParent = parent.path.withCString { path -> String in
            guard let resolved = realpath(path, nil) else { return parent.path }
            defer { free(resolved) }
            return String(cString: resolved)
        }
        let key = ContentHash.sha256(Data((canonicalParent + "/" + bundle.lastPathComponent).utf8))
        return FileManager.default.temporaryDirectory
            .appendingPathComponent("warm-cache-locks-\(getuid())", isDirectory: true)
            .appendingPathComponent("\(key.prefix(32)).lock")
    }

    /// Takes the lock or throws ``WarmError/Kind/locked`` naming the holder.
    init(bundleURL: URL) throws(WarmError) {
        let url = Self.lockURL(for: bundleURL)
        let directory = url.deletingLastPathComponent()
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true,
                                                    attributes: [.posixPermissions: 0o700])
        } catch {
            throw WarmError(.fileSystem, "cannot create the lock folder \(directory.path): "
                + "\(PlainReason.of(error)); check that the temporary directory (TMPDIR) is writable")
        }
        // Every step works on locals: the object (and its deinit) exists only once the lock is held,
        // so a refused run never closes or truncates a descriptor number it no longer owns.
        var descriptor: Int32 = -1
        for attempt in 1...100 {
            descriptor = open(url.path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
            guard descriptor >= 0 else {
                throw WarmError(.fileSystem, "cannot open the lock file \(url.path): \(String(cString: strerror(errno))); "
                    + "check that the temporary directory (TMPDIR) is writable")
            }
            guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else {
                let holder = (try? String(contentsOf: url, encoding: .utf8))?
                    .split(separator: "\n").first.map(String.init) ?? ""
                close(descriptor)
                throw WarmError(.locked, "another warm-cache run is writing \(bundleURL.path)"
                    + (holder.isEmpty ? "" : " (\(holder))") + "; wait for it to finish, or stop it. "
                    + "Its lock (\(url.path)) is released when that process exits.")
            }
            if Self.isStillLinked(descriptor, at: url.path) { break }
            // The previous holder removed the file between our open and our lock: take the new one.
            close(descriptor)
            descriptor = -1
            if attempt == 100 {
                throw WarmError(.fileSystem, "cannot take the lock \(url.path): it keeps being replaced; "
                    + "check what else writes to the temporary directory (TMPDIR)")
            }
        }
        let host = Self.hostName
        let started = ISO8601DateFormatter().string(from: Date())
        let text = "pid \(getpid()) on \(host), started \(started)\n\(bundleURL.path)\n"
        _ = ftruncate(descriptor, 0)
        _ = text.withCString { pwrite(descriptor, $0, strlen($0), 0) }
        self.url = url
        self.descriptor = descriptor
    }

    /// This machine's name, from `gethostname(2)`: Foundation's `hostName` resolves it through
    /// DNS, which took longer than the rest of starting a re-warm.
    private static var hostName: String {
        var buffer = [CChar](repeating: 0, count: 256)
        guard gethostname(&buffer, buffer.count - 1) == 0 else { return "unknown host" }
        let length = buffer.firstIndex(of: 0) ?? buffer.count
        return String(decoding: buffer[..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// Whether `path` still names the file open as `descriptor` (a holder may have removed it).
    private static func isStillLinked(_ descriptor: Int32, at path: String) -> Bool {
        var opened = stat()
        var named = stat()
        guard fstat(descriptor, &opened) == 0, stat(path, &named) == 0 else { return false }
        return opened.st_dev == named.st_dev && opened.st_ino == named.st_ino
    }

    deinit {
        // Removed while still held: a run that opened it meanwhile sees it unlinked and retries.
        unlink(url.path)
        flock(descriptor, LOCK_UN)
        close(descriptor)
    }
}
