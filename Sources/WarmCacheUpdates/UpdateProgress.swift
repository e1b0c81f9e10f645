/// Where an update is, sent while it runs (see ``BundleUpdater/start()``).
public struct UpdateProgress: Sendable, Hashable, CustomStringConvertible {
    public enum Phase: String, Sendable, Hashable {
        /// Revalidating and checking the signed statement, downloading and checking the index.
        case checkingIndex
        /// Downloading and verifying the blobs the new index needs.
        case downloadingBlobs
        /// Switching to the new version and removing superseded blobs.
        case installing
    }

    public var phase: Phase
    /// Blobs downloaded and verified so far, of ``filesTotal`` missing ones.
    public var filesDone: Int
    public var filesTotal: Int
    /// Blob bytes downloaded so far, of ``bytesTotal``.
    public var bytesDone: Int
    public var bytesTotal: Int

    public init(phase: Phase, filesDone: Int = 0, filesTotal: Int = 0, bytesDone: Int = 0, bytesTotal: Int = 0) {
        self.phase = phase
        self.filesDone = filesDone
        self.filesTotal = filesTotal
        self.bytesDone = bytesDone
        self.bytesTotal = bytesTotal
    }

    /// 0–1 by bytes (1 when nothing needs downloading).
    public var fractionCompleted: Double {
        bytesTotal > 0 ? Double(bytesDone) / Double(bytesTotal) : (phase == .installing ? 1 : 0)
    }

    public var description: String {
        "\(phase.rawValue): \(filesDone)/\(filesTotal) files, \(bytesDone)/\(bytesTotal) bytes"
    }
}
