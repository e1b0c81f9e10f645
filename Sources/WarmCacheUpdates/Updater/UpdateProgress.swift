/// Where an update is, sent while it runs (see ``BundleUpdater/start()``).
public struct UpdateProgress: Sendable, Hashable, CustomStringConvertible {
    /// The stage an update is in.
    public enum Phase: String, Sendable, Hashable {
        /// Revalidating and checking the signed statement, downloading and checking the index.
        case checkingIndex
        /// Downloading and verifying the blobs the new index needs.
        case downloadingBlobs
        /// Switching to the new version and removing superseded blobs.
        case installing
    }

    /// The stage the update is in.
    public var phase: Phase
    /// Blobs downloaded and verified so far, of ``filesTotal`` missing ones.
    public var filesDone: Int
    /// Blobs the update must download (those not on disk and not in a seed bundle).
    public var filesTotal: Int
    /// Blob bytes downloaded so far, of ``bytesTotal``.
    public var bytesDone: Int64
    /// Bytes of the blobs in ``filesTotal``.
    public var bytesTotal: Int64

    /// A progress report; the updater sends these, apps usually only read them (a preview or a test
    /// of a progress view may build one).
    public init(phase: Phase, filesDone: Int = 0, filesTotal: Int = 0, bytesDone: Int64 = 0, bytesTotal: Int64 = 0) {
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

    /// The phase and the counts in one line, e.g. "downloadingBlobs: 12/40 files, 20480/67000 bytes".
    public var description: String {
        "\(phase.rawValue): \(filesDone)/\(filesTotal) files, \(bytesDone)/\(bytesTotal) bytes"
    }
}
