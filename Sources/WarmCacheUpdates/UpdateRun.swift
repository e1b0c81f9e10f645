import Crypto
import Foundation
import WarmCache
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The steps of one update, in order (see ``BundleUpdater``): revalidate the index, check it,
/// fetch the missing blobs, install.
struct UpdateRun {
    let updater: BundleUpdater
    let transport: HTTPTransport
    let progress: AsyncStream<UpdateProgress>.Continuation?
    private var requests = 0

    init(updater: BundleUpdater, transport: HTTPTransport, progress: AsyncStream<UpdateProgress>.Continuation?) {
        self.updater = updater
        self.transport = transport
        self.progress = progress
    }

    mutating func run() async throws -> UpdateResult {
        progress?.yield(UpdateProgress(phase: .checkingIndex))
        removeLeftovers()
        let state = UpdateState.read(from: updater.stateURL)
        let installedSize = ObjectStore.fileSize(updater.installedIndexURL)
        let conditional = state.flatMap { state in
            state.indexURL == updater.indexURL.absoluteString && installedSize == state.indexByteCount ? state : nil
        }

        // 1. One conditional request.
        let incomingIndex = updater.incomingURL.appendingPathComponent(BundleFormat.indexFileName)
        requests += 1
        let response = try await transport.get(updater.indexURL, headers: conditional?.conditionalHeaders ?? [:],
                                               limit: updater.configuration.maximumIndexByteCount,
                                               destination: incomingIndex)
        if response.status == 304, conditional != nil {
            return result(.upToDate, indexBytes: 0)
        }
        guard response.status == 200, let indexSHA256 = response.sha256 else {
            throw BundleUpdateError(.httpStatus(response.status), url: updater.indexURL)
        }
        let newState = UpdateState(indexURL: updater.indexURL.absoluteString, etag: response.header("ETag"),
                                   lastModified: response.header("Last-Modified"),
                                   indexByteCount: response.byteCount, indexSHA256: indexSHA256, installedAt: Date())
        if let state, state.indexSHA256 == indexSHA256, installedSize == response.byteCount {
            // Same bytes under new validators (e.g. re-uploaded): nothing to install.
            try updater.fileSystem("saving the update state") { try newState.write(to: updater.stateURL) }
            return result(.upToDate, indexBytes: response.byteCount)
        }

        // 2. Check the index like any untrusted file.
        let blobs = try checkIndex(at: incomingIndex)

        // 3. Blobs: reuse what is on disk or in a seed bundle, download the rest.
        var missing: [BlobReference] = []
        var reused = 0
        for blob in blobs {
            if ObjectStore.fileSize(updater.directory.appendingPathComponent(blob.relativePath)) == blob.byteCount {
                reused += 1
            } else if try copyFromSeed(blob) {
                reused += 1
            } else {
                missing.append(blob)
            }
        }
        let downloadedBytes = try await download(missing)
        requests += missing.count

        // 4. Switch, then collect garbage.
        progress?.yield(UpdateProgress(phase: .installing, filesDone: missing.count, filesTotal: missing.count,
                                       bytesDone: downloadedBytes, bytesTotal: downloadedBytes))
        try install(incomingIndex, state: newState)
        let removed = collectGarbage(keeping: blobs)
        var summary = result(.updated, indexBytes: response.byteCount)
        summary.blobsDownloaded = missing.count
        summary.blobBytesDownloaded = downloadedBytes
        summary.blobsReused = reused
        summary.blobsReferenced = blobs.count
        summary.blobBytesReferenced = blobs.reduce(0) { $0 + $1.byteCount }
        summary.blobsRemoved = removed
        return summary
    }

    private func result(_ outcome: UpdateResult.Outcome, indexBytes: Int) -> UpdateResult {
        UpdateResult(outcome: outcome, bundleURL: updater.directory, requests: requests, indexBytes: indexBytes,
                     blobsDownloaded: 0, blobBytesDownloaded: 0, blobsReused: 0, blobsReferenced: 0,
                     blobBytesReferenced: 0, blobsRemoved: 0)
    }

    // MARK: Index

    /// Opens the downloaded index read-only and applies every check; returns the blobs it needs.
    private func checkIndex(at index: URL) throws -> [BlobReference] {
        let url = updater.indexURL
        do {
            let bundle = try CacheBundle(contentsOf: index.deletingLastPathComponent(),
                                         configuration: CacheBundle.Configuration(maximumConnections: 1))
            try bundle.query { connection in
                let check = try connection.statement("PRAGMA quick_check")
                guard try check.step(), check.text(0) == "ok" else {
                    throw BundleUpdateError(.invalidIndex, url: url, detail: "SQLite integrity check: \(check.text(0))")
                }
            }
            // The reader's rules for untrusted indexes; values it does not know are skipped, as lookups do.
            let problems = try bundle.indexProblems().filter { $0.kind != .unknownValue }
            if let first = problems.first {
                throw BundleUpdateError(.invalidIndex, url: url, detail: "\(first)"
                    + (problems.count > 1 ? " (and \(problems.count - 1) more problems)" : ""))
            }
            return try bundle.query { try BlobReference.referenced(in: $0) }
        } catch let error as CacheBundleError {
            if case .unsupportedVersion(let found, let supported) = error.kind {
                throw BundleUpdateError(.unsupportedVersion(found: found, supported: supported), url: url)
            }
            throw BundleUpdateError(.invalidIndex, url: url, detail: Self.reason(error))
        }
    }

    /// The reader's complaint without its local path (the file is a download, not the user's bundle).
    private static func reason(_ error: CacheBundleError) -> String {
        switch error.kind {
        case .notABundle: return error.detail.isEmpty ? "not a WarmCache index" : error.detail
        case .corruptIndex: return "not a readable SQLite index" + (error.detail.isEmpty ? "" : ": \(error.detail)")
        default: return error.description
        }
    }

    // MARK: Blobs

    /// Copies a blob from the first seed bundle that has it with the right size and hash.
    private func copyFromSeed(_ blob: BlobReference) throws -> Bool {
        for seed in updater.configuration.seedBundles {
            let candidate = seed.appendingPathComponent(blob.relativePath)
            guard ObjectStore.fileSize(candidate) == blob.byteCount,
                  let data = try? Data(contentsOf: candidate),
                  BundleUpdater.hex(SHA256.hash(data: data)) == blob.sha256 else { continue }
            let staged = updater.incomingURL.appendingPathComponent("\(blob.sha256).seed")
            try updater.fileSystem("copying \(blob.relativePath) from \(seed.path)") {
                try data.write(to: staged)
                try place(staged, as: blob)
            }
            return true
        }
        return false
    }

    /// Downloads `blobs`, at most `maximumConcurrentDownloads` at once; returns the bytes.
    private func download(_ blobs: [BlobReference]) async throws -> Int {
        let total = blobs.reduce(0) { $0 + $1.byteCount }
        var current = UpdateProgress(phase: .downloadingBlobs, filesTotal: blobs.count, bytesTotal: total)
        progress?.yield(current)
        guard !blobs.isEmpty else { return 0 }
        let width = max(1, updater.configuration.maximumConcurrentDownloads)
        let run = self
        return try await withThrowingTaskGroup(of: Int.self) { group in
            var pending = blobs[...]
            func startNext() {
                guard let blob = pending.popFirst() else { return }
                group.addTask { try await run.fetch(blob) }
            }
            for _ in 0..<width { startNext() }
            while let bytes = try await group.next() {
                current.filesDone += 1
                current.bytesDone += bytes
                progress?.yield(current)
                startNext()
            }
            return current.bytesDone
        }
    }

    /// Downloads one blob to a staging file, verifies size and hash, and moves it into `objects/`.
    private func fetch(_ blob: BlobReference) async throws -> Int {
        let url = updater.baseURL.appendingPathComponent(blob.relativePath)
        let staged = updater.incomingURL.appendingPathComponent("\(blob.sha256).part")
        defer { try? FileManager.default.removeItem(at: staged) }
        let response: TransferResponse
        do {
            response = try await transport.get(url, limit: blob.byteCount, destination: staged)
        } catch let error as BundleUpdateError {
            if case .tooLarge = error.kind {
                throw BundleUpdateError(.sizeMismatch(expected: blob.byteCount, actual: blob.byteCount + 1), url: url,
                                        detail: "the server sent more bytes than the index lists")
            }
            throw error
        }
        guard response.status == 200 else {
            throw BundleUpdateError(.httpStatus(response.status), url: url)
        }
        guard response.byteCount == blob.byteCount else {
            throw BundleUpdateError(.sizeMismatch(expected: blob.byteCount, actual: response.byteCount), url: url)
        }
        guard let sha256 = response.sha256, sha256 == blob.sha256 else {
            throw BundleUpdateError(.hashMismatch(expected: blob.sha256, actual: response.sha256 ?? "none"), url: url)
        }
        try updater.fileSystem("storing \(blob.relativePath)") { try place(staged, as: blob) }
        return response.byteCount
    }

    /// Moves a verified staging file to its place in `objects/`. Content addressing makes this
    /// safe before the switch: readers of the installed index never look at a blob it does not list.
    private func place(_ staged: URL, as blob: BlobReference) throws {
        let destination = updater.directory.appendingPathComponent(blob.relativePath)
        try FileManager.default.createDirectory(at: destination.deletingLastPathComponent(),
                                                withIntermediateDirectories: true)
        try BundleUpdater.atomicReplace(destination, with: staged)
    }

    // MARK: Install

    /// Flushes the new index, keeps a link to the one it replaces (whose blobs stay until the next
    /// update), renames the new one into place and records its validators.
    private func install(_ incomingIndex: URL, state: UpdateState) throws {
        try updater.fileSystem("installing the new index") {
            let handle = try FileHandle(forUpdating: incomingIndex)
            try handle.synchronize()
            try handle.close()
            try? FileManager.default.removeItem(at: updater.previousIndexURL)
            if FileManager.default.fileExists(atPath: updater.installedIndexURL.path) {
                try FileManager.default.linkItem(at: updater.installedIndexURL, to: updater.previousIndexURL)
            }
            try BundleUpdater.atomicReplace(updater.installedIndexURL, with: incomingIndex)
            try state.write(to: updater.stateURL)
        }
    }

    /// Deletes blobs in `objects/` that neither the new index nor the replaced one references.
    private func collectGarbage(keeping current: [BlobReference]) -> Int {
        var keep = Set(current.map(\.fileName))
        if let previous = try? SQLiteConnection(path: updater.previousIndexURL.path, readOnly: true),
           let blobs = try? BlobReference.referenced(in: previous) {
            keep.formUnion(blobs.map(\.fileName))
        }
        return ObjectStore.removeUnreferenced(in: updater.directory) { keep.contains($0) }
    }

    /// Partial files of an interrupted update (verified blobs are already in `objects/`).
    private func removeLeftovers() {
        let fileManager = FileManager.default
        for name in (try? fileManager.contentsOfDirectory(atPath: updater.incomingURL.path)) ?? [] {
            try? fileManager.removeItem(at: updater.incomingURL.appendingPathComponent(name))
        }
    }
}
