import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// File-level housekeeping of a bundle's `objects/` directory, shared by everything that writes
/// one (the builder's bundle writer, the updater).
package enum ObjectStore {
    /// Deletes every file under `<bundle>/objects/` whose name (`<sha256>.<ext>`) `isReferenced`
    /// rejects, and fan-out folders left empty; returns how many files went.
    package static func removeUnreferenced(in bundleURL: URL, isReferenced: (String) -> Bool) -> Int {
        let fileManager = FileManager.default
        let objects = bundleURL.appendingPathComponent(BundleFormat.objectsDirectoryName)
        var removed = 0
        for fanout in (try? fileManager.contentsOfDirectory(atPath: objects.path)) ?? [] {
            let folder = objects.appendingPathComponent(fanout)
            let names = (try? fileManager.contentsOfDirectory(atPath: folder.path)) ?? []
            var remaining = names.count
            for name in names where !isReferenced(name) {
                if (try? fileManager.removeItem(at: folder.appendingPathComponent(name))) != nil {
                    removed += 1
                    remaining -= 1
                }
            }
            if remaining == 0 { try? fileManager.removeItem(at: folder) }
        }
        return removed
    }

    /// The size of a file in bytes, or `nil` if it is not there.
    package static func fileSize(_ url: URL) -> Int? {
        fileSize(atPath: url.path)
    }

    /// The size of the file at `path` in bytes (not following a final symbolic link), or `nil` if
    /// it is not there. One `lstat`: writers call it once per blob.
    package static func fileSize(atPath path: String) -> Int? {
        var status = stat()
        return lstat(path, &status) == 0 ? Int(status.st_size) : nil
    }
}
