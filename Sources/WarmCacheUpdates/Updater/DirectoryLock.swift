import Foundation

/// An exclusive advisory lock (`flock`) on a file, held until ``unlock()`` or process exit: one
/// update per directory at a time, across threads and processes. The kernel drops it when a
/// process dies, so a killed update never leaves the directory locked.
final class DirectoryLock {
    private var descriptor: Int32

    /// Takes the lock or returns `nil` at once if someone holds it.
    init?(file: URL) throws {
        descriptor = open(file.path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else {
            throw CocoaError(.fileWriteNoPermission, userInfo: [NSFilePathErrorKey: file.path])
        }
        guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else {
            close(descriptor)
            return nil
        }
    }

    func unlock() {
        guard descriptor >= 0 else { return }
        flock(descriptor, LOCK_UN)
        close(descriptor)
        descriptor = -1
    }

    deinit {
        unlock()
    }
}
