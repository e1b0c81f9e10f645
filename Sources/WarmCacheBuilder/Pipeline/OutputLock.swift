import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// An exclusive lock on one bundle output, so two runs never write the same bundle at once.
///
/// The lock is `flock(2)` on a hidden file beside the bundle (`.Images.warmcache.lock`; SwiftPM
/// ignores hidden files in resource folders). The kernel releases it when the holder exits,
/// however it exits (`kill -9` included), so a stale lock cannot block the next run. The file
/// holds the holder's pid, host and start time, for the message the second run prints.
final class OutputLock {
    let url: URL
    private let descriptor: Int32

    /// Takes the lock or throws ``WarmError/Kind/locked`` naming the holder.
    init(bundleURL: URL) throws(WarmError) {
        let directory = bundleURL.deletingLastPathComponent()
        url = directory.appendingPathComponent(".\(bundleURL.lastPathComponent).lock")
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        } catch {
            throw WarmError(.fileSystem, "cannot create \(directory.path): \(error.localizedDescription)")
        }
        descriptor = open(url.path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else {
            throw WarmError(.fileSystem, "cannot open the lock file \(url.path): \(String(cString: strerror(errno)))")
        }
        guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else {
            let holder = (try? String(contentsOf: url, encoding: .utf8))?
                .trimmingCharacters(in: .whitespacesAndNewlines) ?? ""
            close(descriptor)
            throw WarmError(.locked, "another warm-cache run is writing \(bundleURL.path)"
                + (holder.isEmpty ? "" : " (\(holder))") + "; wait for it to finish, or stop it. "
                + "The lock is \(url.path) and is released when that process exits.")
        }
        let host = ProcessInfo.processInfo.hostName
        let started = ISO8601DateFormatter().string(from: Date())
        let text = "pid \(getpid()) on \(host), started \(started)\n"
        _ = ftruncate(descriptor, 0)
        _ = text.withCString { pwrite(descriptor, $0, strlen($0), 0) }
    }

    deinit {
        _ = ftruncate(descriptor, 0)
        flock(descriptor, LOCK_UN)
        close(descriptor)
    }
}
