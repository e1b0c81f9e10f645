import Foundation

/// File-level housekeeping of a bundle's `objects/` directory, shared by everything that writes
/// one (the builder's bundle writer, the updater).
package enum ObjectStore {
    /// The index whose blobs the updater keeps after an update, relative to the bundle folder: the
    /// version it replaced, so readers opened before the switch keep working until the next update.
    /// Its blobs are kept on purpose (``keptFileNames(in:)``); nothing else in `objects/` is.
    package static let previousIndexPath = ".update/previous.sqlite"

    /// The names a bundle folder holds of its own: the index, `objects/`, the signed statement, the
    /// writer's staging folder and half-built indexes, and the updater's folder.
    package static func isBundleEntry(_ name: String) -> Bool {
        [BundleFormat.indexFileName, BundleFormat.objectsDirectoryName, BundleFormat.statementFileName,
         ".tmp", ".update"].contains(name) || isIndexTemporary(name)
    }

    /// Whether `name` is an index being built (`index-<uuid>.sqlite.tmp`), left by an interrupted run.
    package static func isIndexTemporary(_ name: String) -> Bool {
        name.hasPrefix("index-") && name.hasSuffix(".sqlite.tmp")
    }

    /// Why the folder at `path` cannot take a bundle (`warm`, `merge` and `pull` alike), or `nil`
    /// if it can: it is a file ("it is a file"), or it holds other things and no published index
    /// ("it holds notes.txt, photo.jpg"), which a clean-up of a failed run must never touch.
    /// A missing path can take one.
    package static func refusal(toWriteBundleAt path: String) -> String? {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else { return nil }
        guard isDirectory.boolValue else { return "it is a file" }
        guard let entries = try? FileManager.default.contentsOfDirectory(atPath: path) else {
            return "it cannot be listed"
        }
        // Finder's `.DS_Store` and the `._name` files a copy to FAT, exFAT or SMB leaves are the
        // system's, not the user's: they do not stop a bundle from being written there.
        let foreign = entries.filter { !isBundleEntry($0) && $0 != ".DS_Store" && !$0.hasPrefix("._") }
        guard !foreign.isEmpty, !entries.contains(BundleFormat.indexFileName) else { return nil }
        return "it holds \(foreign.sorted().prefix(3).joined(separator: ", "))" + (foreign.count > 3 ? ", …" : "")
    }

    /// The blob file names (`<sha256>.<ext>`) the index at `path` lists.
    package static func referencedFileNames(ofIndexAt path: String) throws -> Set<String> {
        let connection = try SQLiteConnection(path: path, readOnly: true)
        typealias V = IndexSchema.Variants
        let statement = try connection.statement("SELECT DISTINCT \(V.blobSHA256), \(V.format) FROM \(V.table)")
        var names = Set<String>()
        while try statement.step() {
            let format = statement.text(V.format)
            names.insert(statement.text(V.blobSHA256) + "." + (ImageFormat(rawValue: format)?.fileExtension ?? format))
        }
        return names
    }

    /// The blob file names of `objects/` that the bundle at `bundleURL` keeps on purpose beside those
    /// its index lists: those of the version an update replaced (``previousIndexPath``).
    package static func keptFileNames(in bundleURL: URL) -> Set<String> {
        let previous = bundleURL.appendingPathComponent(previousIndexPath).path
        guard FileManager.default.fileExists(atPath: previous) else { return [] }
        return (try? referencedFileNames(ofIndexAt: previous)) ?? []
    }

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
        return lstat(path, &status) == 0 ? Int(exactly: status.st_size) : nil
    }
}
