import Foundation
import WarmCache

/// What `stat(2)` says about a file that changes whenever its bytes do: size, inode, and the
/// modification and status-change times to the nanosecond.
///
/// A file whose stamp is the one recorded when its bytes were last hashed has not been written
/// since (any write moves the change time, which no user tool can set back; a copy or a restored
/// cache is a new inode), so its hash need not be computed again. Like git's index, this trusts
/// the file system's clock: a change made within the same clock tick as the recorded state and
/// keeping the size is not seen.
struct FileStamp: Sendable, Equatable {
    var size: Int
    var inode: UInt64
    var modifiedSeconds: Int
    var modifiedNanoseconds: Int
    var changedSeconds: Int
    var changedNanoseconds: Int

    /// The modification time.
    var modified: Date {
        Date(timeIntervalSince1970: TimeInterval(modifiedSeconds) + TimeInterval(modifiedNanoseconds) / 1e9)
    }

    init(size: Int, inode: UInt64, modifiedSeconds: Int, modifiedNanoseconds: Int, changedSeconds: Int,
         changedNanoseconds: Int) {
        self.size = size
        self.inode = inode
        self.modifiedSeconds = modifiedSeconds
        self.modifiedNanoseconds = modifiedNanoseconds
        self.changedSeconds = changedSeconds
        self.changedNanoseconds = changedNanoseconds
    }

    /// The stamp of the regular file at `path` (symbolic links are not followed), or `nil`.
    init?(atPath path: String) {
        self.init(atPath: path, in: AT_FDCWD)
    }

    /// The stamp of the regular file at `path`, relative to the open folder `folder` (or the
    /// working directory with `AT_FDCWD`); symbolic links are not followed.
    init?(atPath path: String, in folder: Int32) {
        var status = stat()
        guard fstatat(folder, path, &status, AT_SYMLINK_NOFOLLOW) == 0, status.st_mode & S_IFMT == S_IFREG else {
            return nil
        }
        size = Int(status.st_size)
        inode = UInt64(status.st_ino)
        let times = LibC.times(of: status)
        modifiedSeconds = Int(times.modified.tv_sec)
        modifiedNanoseconds = Int(times.modified.tv_nsec)
        changedSeconds = Int(times.changed.tv_sec)
        changedNanoseconds = Int(times.changed.tv_nsec)
    }

    /// The stamp as six numbers: `size inode mtime-s mtime-ns ctime-s ctime-ns` (how records store it).
    var text: String {
        "\(size) \(inode) \(modifiedSeconds) \(modifiedNanoseconds) \(changedSeconds) \(changedNanoseconds)"
    }

    /// Reads ``text``; `nil` for anything else.
    init?(text: some StringProtocol) {
        var text = String(text)
        guard let stamp = text.withUTF8({ FileStamp(bytes: $0) }) else { return nil }
        self = stamp
    }

    /// Reads ``text`` from its UTF-8 bytes (records are read as bytes); `nil` for anything else:
    /// exactly six decimal numbers (times before 1970 are negative), one space between each two.
    init?(bytes: some Collection<UInt8>) {
        var numbers: [Int] = []
        numbers.reserveCapacity(6)
        var value = 0, digits = 0, sign = 1
        func endNumber() -> Bool {
            guard digits > 0 else { return false }
            numbers.append(sign * value)
            (value, digits, sign) = (0, 0, 1)
            return true
        }
        for byte in bytes {
            switch byte {
            case UInt8(ascii: " "):
                guard endNumber() else { return nil }
            case UInt8(ascii: "-") where digits == 0 && sign == 1:
                sign = -1
            case UInt8(ascii: "0")...UInt8(ascii: "9") where digits < 18:
                value = value * 10 + Int(byte - UInt8(ascii: "0"))
                digits += 1
            default:
                return nil
            }
        }
        guard endNumber(), numbers.count == 6, numbers[1] >= 0 else { return nil }
        self.init(size: numbers[0], inode: UInt64(numbers[1]), modifiedSeconds: numbers[2],
                  modifiedNanoseconds: numbers[3], changedSeconds: numbers[4], changedNanoseconds: numbers[5])
    }
}
