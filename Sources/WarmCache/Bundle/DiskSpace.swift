import CSQLite
import Foundation

/// A disk running out of room (bytes, inodes or the user's quota): recognised in the errors of
/// file and SQLite calls, measured with `statvfs(2)`, and told in one plain line. Shared by
/// everything that writes: `warm`, `merge` and the updater.
package enum DiskSpace {
    /// Whether `error` says a disk is full, has no free inodes, or a quota was reached: a POSIX
    /// `ENOSPC` or `EDQUOT` (directly or underlying), SQLite's `SQLITE_FULL`, or a message that
    /// carries the system's words for them.
    package static func isExhausted(by error: Error) -> Bool {
        if let sqlite = error as? SQLiteError, sqlite.code & 0xff == SQLITE_FULL { return true }
        let nsError = error as NSError
        if nsError.domain == NSPOSIXErrorDomain, codes.contains(Int32(truncatingIfNeeded: nsError.code)) { return true }
        if let underlying = nsError.userInfo[NSUnderlyingErrorKey] as? NSError, underlying.domain == NSPOSIXErrorDomain,
           codes.contains(Int32(truncatingIfNeeded: underlying.code)) {
            return true
        }
        if nsError.domain == NSCocoaErrorDomain, nsError.code == CocoaError.fileWriteOutOfSpace.rawValue { return true }
        // Its text, only to classify it (never shown).
        return isExhausted(message: String(reflecting: error))
    }

    /// Whether `message` carries the system's words for a full disk or quota (`strerror(ENOSPC)`,
    /// `strerror(EDQUOT)`, SQLite's "database or disk is full"): for failures only kept as text.
    package static func isExhausted(message: String) -> Bool {
        phrases.contains { message.contains($0) }
    }

    private static let codes: Set<Int32> = [ENOSPC, EDQUOT]
    private static let phrases = [String(cString: strerror(ENOSPC)), String(cString: strerror(EDQUOT)),
                                  String(cString: sqlite3_errstr(SQLITE_FULL))]

    /// What a file system has free for an unprivileged writer.
    package struct Room: Sendable, Equatable {
        /// The folder measured: `path` itself or its nearest existing ancestor.
        package var folder: String
        package var bytes: Int64
        /// Free inodes (`nil` where the file system does not count them).
        package var inodes: Int64?
        /// The file system's identity, to tell whether two paths share one.
        package var device: UInt64
    }

    /// The room on the file system that holds `path` (or would hold it: a missing path is
    /// measured at its nearest existing ancestor); `nil` if none can be measured.
    package static func room(at path: String) -> Room? {
        var folder = path.isEmpty ? "." : path
        while true {
            if let free = LibC.freeSpace(at: folder) {
                return Room(folder: folder, bytes: free.bytes, inodes: free.inodes,
                            device: LibC.device(of: folder) ?? 0)
            }
            let parent = (folder as NSString).deletingLastPathComponent
            if parent == folder || parent.isEmpty { return nil }
            folder = parent
        }
    }

    /// Of `paths`, the one on the file system with the least room (no free inodes counting as
    /// none): where a run that ran out of space ran out.
    package static func fullest(of paths: [String]) -> String? {
        paths.min { a, b in
            func free(_ path: String) -> Int64 {
                guard let room = room(at: path) else { return Int64.max }
                return room.inodes == 0 ? 0 : room.bytes
            }
            return free(a) < free(b)
        }
    }

    /// Whether the file system holding `path` is out of inodes rather than bytes (a few inodes may
    /// have been freed since by files the failing work removed): measure it before cleaning up.
    package static func isOutOfInodes(at path: String) -> Bool {
        guard let inodes = room(at: path)?.inodes else { return false }
        return inodes < 32
    }

    /// One plain clause for a disk that ran out while writing under `path`: where, roughly how
    /// many bytes the work needs there in all (when known) and what is free now, e.g. "the disk
    /// holding /srv/Images.warmcache is full: this needs roughly 3.1 MB, 412.0 KB is free".
    /// `outOfInodes` (``isOutOfInodes(at:)``, measured when the work failed) says it ran out of
    /// room for files instead.
    package static func shortage(at path: String, needed: Int64?, outOfInodes: Bool = false) -> String {
        if outOfInodes || isOutOfInodes(at: path) {
            return "the disk holding \(path) has no room for more files (it has no free inodes)"
        }
        guard let room = room(at: path) else { return "the disk holding \(path) is full" }
        let free = "\(ByteCountText.format(room.bytes)) is free"
        guard let needed, needed > 0 else { return "the disk holding \(path) is full: \(free)" }
        return "the disk holding \(path) is full: this needs roughly \(ByteCountText.format(needed)), \(free)"
    }
}
