import Foundation
import WarmCache

/// A folder held open, its files addressed by paths relative to it: a bundle's `objects/`
/// (blobs at `<aa>/<sha256>.<ext>`, ``blobPath(sha256:format:)``) or the originals cache's folder.
///
/// Merges and commits touch hundreds of thousands of blobs, and a re-warm checks every blob and
/// original it reuses; resolving each one's absolute path again (every folder from `/` down)
/// costs more kernel time than the operation itself. With the folder open, each call walks two
/// components.
final class OpenFolder: Sendable {
    private let descriptor: Int32

    /// Opens the folder at `path`; `nil` if it cannot be opened.
    init?(path: String) {
        let descriptor = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        self.descriptor = descriptor
    }

    /// Opens the `objects/` folder of the bundle at `bundlePath`; `nil` if it cannot be opened.
    convenience init?(objectsOf bundlePath: String) {
        self.init(path: bundlePath + "/" + BundleFormat.objectsDirectoryName)
    }

    deinit {
        close(descriptor)
    }

    /// The path of a blob relative to `objects/`.
    static func blobPath(sha256: String, format: ImageFormat) -> String {
        "\(sha256.prefix(2))/\(sha256).\(format.fileExtension)"
    }

    /// The size of the file at `relativePath` (not following a final symbolic link), or `nil`.
    func fileSize(_ relativePath: String) -> Int? {
        var status = stat()
        return fstatat(descriptor, relativePath, &status, AT_SYMLINK_NOFOLLOW) == 0 ? Int(status.st_size) : nil
    }

    /// The ``FileStamp`` of the regular file at `relativePath`, or `nil`.
    func stamp(_ relativePath: String) -> FileStamp? {
        FileStamp(atPath: relativePath, in: descriptor)
    }

    /// Creates the fan-out folder `name` unless it exists; whether it is there now.
    func makeFolder(_ name: String) -> Bool {
        mkdirat(descriptor, name, 0o755) == 0 || errno == EEXIST
    }

    /// Hard-links this folder's `relativePath` to the same path in `destination`; the `errno` of a
    /// failure, `nil` on success.
    func link(_ relativePath: String, into destination: OpenFolder) -> Int32? {
        linkat(descriptor, relativePath, destination.descriptor, relativePath, 0) == 0 ? nil : errno
    }
}
