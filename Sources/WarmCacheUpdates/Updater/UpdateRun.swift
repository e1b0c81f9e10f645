import Foundation
import WarmCache

/// The steps of one update, in order (see ``BundleUpdater``): revalidate and check the signed
/// statement (or, unsigned, the index), fetch and check the index, fetch the missing blobs,
/// install.
struct UpdateRun {
    let updater: BundleUpdater
    let transport: HTTPTransport
    let progress: AsyncStream<UpdateProgress>.Continuation?
    private var requests = 0
    private var statementBytes: Int64 = 0
    /// Roughly what this update writes: its index, then the blobs it downloads (once known).
    private var neededBytes: Int64?
    /// The end of the time the whole update may take.
    private let deadline: TransferDeadline

    init(updater: BundleUpdater, transport: HTTPTransport, progress: AsyncStream<UpdateProgress>.Continuation?) {
        self.updater = updater
        self.transport = transport
        self.progress = progress
        deadline = TransferDeadline(in: updater.configuration.maximumUpdateDuration)
    }

    mutating func run() async throws -> UpdateResult {
        progress?.yield(UpdateProgress(phase: .checkingIndex))
        removeLeftovers()
        do {
            return try await updater.requiresSignature ? runSigned() : runUnsigned()
        } catch {
            // Nothing of a refused or failed update stays; blobs verified before a transient
            // failure (or a cancellation) wait in the updater's folder for the next update.
            removeLeftovers()
            if !Self.isResumable(error) { removeVerifiedBlobs() }
            removeUnlistedBlobs()
            var outOfSpace = DiskSpace.isExhausted(by: error)
            if let failure = error as? BundleUpdateError, case .outOfSpace = failure.kind { outOfSpace = true }
            if outOfSpace {
                // Said of the local folder, with roughly what the update needs there.
                throw BundleUpdateError(.outOfSpace(needed: neededBytes), url: updater.directory)
            }
            throw error
        }
    }

    /// Blobs in `objects/` that neither the installed index nor the one it replaced lists: moved
    /// there by an install that failed before its index was switched.
    private func removeUnlistedBlobs() {
        let installed = updater.installedIndexURL.path
        guard FileManager.default.fileExists(atPath: installed),
              let listed = try? ObjectStore.referencedFileNames(ofIndexAt: installed) else { return }
        let kept = listed.union(ObjectStore.keptFileNames(in: updater.directory))
        _ = ObjectStore.removeUnreferenced(in: updater.directory) { kept.contains($0) }
    }

    static func isResumable(_ error: Error) -> Bool {
        if error is CancellationError { return true }
        return (error as? BundleUpdateError)?.isTransient ?? false
    }

    // MARK: Signed

    private mutating func runSigned() async throws -> UpdateResult {
        let keys = updater.configuration.trustedKeys
        let state = UpdateState.read(from: updater.stateURL)
        let installed = Self.statement(at: updater.installedStatementURL)
        let installedIndex = installedIndexDigest(state)
        let shipped = updater.configuration.seedBundles.compactMap {
            Self.statement(at: $0.appendingPathComponent(BundleFormat.statementFileName))
        }
        // The installed statement is revalidated only while a trusted key still vouches for it
        // (a retired key's statement is fetched again) and it describes the index on disk.
        let revalidated = installed.flatMap { try? SignedStatement.verify($0.data, trustedKeys: keys) }
        var conditional: [String: String] = [:]
        if let state, let revalidated, state.revalidatedURL == updater.statementURL.absoluteString,
           revalidated.statement.index == installedIndex {
            conditional = state.conditionalHeaders
        }

        // 1. One conditional request, for the statement.
        let incomingStatement = updater.incomingURL.appendingPathComponent(BundleFormat.statementFileName)
        requests += 1
        let response: TransferResponse
        do {
            response = try await transport.get(
                updater.statementURL, headers: conditional, limit: Int64(BundleStatement.maximumByteCount),
                destination: incomingStatement,
                deadline: .earliest(TransferDeadline(in: updater.configuration.timeout), deadline))
        } catch let error as BundleUpdateError {
            if case .tooLarge = error.kind {
                throw BundleUpdateError(.invalidStatement, url: updater.statementURL,
                                        detail: "more than \(BundleStatement.maximumByteCount) bytes; a statement is about 500")
            }
            throw error
        }
        let offered: SignedStatement
        var validators = (etag: state?.etag, lastModified: state?.lastModified)
        switch response.status {
        case 304 where !conditional.isEmpty:
            offered = revalidated!
        case 200:
            statementBytes = response.byteCount
            let data = try updater.fileSystem("reading the downloaded statement") { try Data(contentsOf: incomingStatement) }
            do {
                offered = try SignedStatement.verify(data, trustedKeys: keys)
            } catch {
                throw Self.refusal(error, url: updater.statementURL)
            }
            validators = UpdateState.trustworthyValidators(of: response)
        case 404, 410:
            throw await missingStatement(status: response.status)
        default:
            throw BundleUpdateError(.httpStatus(response.status), url: updater.statementURL)
        }

        // 2. Order and freshness.
        try checkOrder(offered.statement, installed: installed?.statement, shipped: shipped.map(\.statement),
                       floor: state?.highestSignedVersion)
        if offered.statement.isExpired(at: updater.now()) {
            throw BundleUpdateError(.expired(at: offered.statement.expiresAt), url: updater.statementURL)
        }
        var newState = UpdateState(
            indexURL: updater.indexURL.absoluteString, validatedURL: updater.statementURL.absoluteString,
            etag: validators.etag, lastModified: validators.lastModified,
            indexByteCount: offered.statement.index.byteCount, indexSHA256: offered.statement.index.sha256,
            installedAt: Date())
        newState.highestSignedVersion = max(state?.highestSignedVersion ?? 0, offered.statement.version)

        // Nothing changed when the statement names the installed index, whatever the server's
        // validators said. A statement signed again (a later expiry) replaces the installed one.
        if let installedIndex, installedIndex == offered.statement.index {
            newState.installedAt = state?.installedAt ?? newState.installedAt
            try updater.fileSystem("installing the statement") {
                if offered.data != installed?.data {
                    try BundleUpdater.atomicReplace(updater.installedStatementURL, with: incomingStatement)
                }
                if newState != state { try newState.write(to: updater.stateURL) }
            }
            return result(.upToDate, indexBytes: 0, statement: offered)
        }

        // 3. The index the statement names, and nothing else.
        let expected = offered.statement.index
        guard expected.byteCount <= Int64(updater.configuration.maximumIndexByteCount) else {
            throw BundleUpdateError(.tooLarge(limit: Int64(updater.configuration.maximumIndexByteCount)), url: updater.indexURL,
                                    detail: "the signed statement says \(expected.byteCount) bytes")
        }
        let incomingIndex = updater.incomingURL.appendingPathComponent(BundleFormat.indexFileName)
        neededBytes = expected.byteCount
        requests += 1
        let indexResponse: TransferResponse
        do {
            indexResponse = try await transport.get(updater.indexURL, limit: expected.byteCount,
                                                    destination: incomingIndex, deadline: deadline)
        } catch let error as BundleUpdateError {
            if case .tooLarge = error.kind {
                throw BundleUpdateError(.indexMismatch(expected: expected.description,
                                                       actual: "more than \(expected.byteCount) bytes"),
                                        url: updater.indexURL)
            }
            throw error
        }
        guard indexResponse.status == 200, let sha256 = indexResponse.sha256 else {
            throw BundleUpdateError(.httpStatus(indexResponse.status), url: updater.indexURL)
        }
        let received = IndexDigest(sha256: sha256, byteCount: indexResponse.byteCount)
        guard received == expected else {
            throw BundleUpdateError(.indexMismatch(expected: expected.description, actual: received.description),
                                    url: updater.indexURL)
        }
        return try await install(incomingIndex, indexBytes: indexResponse.byteCount,
                                 statement: (offered, incomingStatement), state: newState)
    }

    /// Why `statement.json` is missing: the bundle is unsigned when its index is there (a small
    /// ranged request tells), else nothing is published at the base URL.
    private mutating func missingStatement(status: Int) async -> BundleUpdateError {
        requests += 1
        let probe = updater.incomingURL.appendingPathComponent("index.probe")
        defer { try? FileManager.default.removeItem(at: probe) }
        let indexFound: Bool
        do {
            let response = try await transport.get(updater.indexURL, headers: ["Range": "bytes=0-99"], limit: 1 << 16,
                                                   destination: probe,
                                                   deadline: .earliest(TransferDeadline(in: updater.configuration.timeout),
                                                                       deadline))
            indexFound = response.status == 200 || response.status == 206
        } catch {
            // More than the limit: a server that ignored the range, and an index.
            indexFound = (error as? BundleUpdateError).map { if case .tooLarge = $0.kind { true } else { false } } ?? false
        }
        guard indexFound else { return BundleUpdateError(.notFound(status: status), url: updater.statementURL) }
        let detail = updater.configuration.allowsUnsignedUpdates
            ? "unsigned updates are allowed only when no public key is trusted: with one, every bundle must be signed by it"
            : ""
        return BundleUpdateError(.unsigned, url: updater.statementURL, detail: detail)
    }

    /// A shipped or installed statement, read without checking its signature: its version only
    /// ever makes the updater stricter.
    private static func statement(at url: URL) -> SignedStatement? {
        guard let data = FileManager.default.contents(atPath: url.path) else { return nil }
        return try? SignedStatement.readUnverified(data)
    }

    /// The digest of the index on disk as the last install recorded it (while the file still has
    /// that size).
    private func installedIndexDigest(_ state: UpdateState?) -> IndexDigest? {
        guard let state, ObjectStore.fileSize(updater.installedIndexURL).map(Int64.init) == state.indexByteCount else {
            return nil
        }
        return state.index
    }

    /// Refuses a version below the installed or shipped one (or below `floor`, the highest this
    /// folder ever installed), and another index under one of theirs.
    private func checkOrder(_ offered: BundleStatement, installed: BundleStatement?, shipped: [BundleStatement],
                            floor: Int64?) throws {
        let known = [installed].compactMap { $0 } + shipped
        if let newest = (known.map(\.version) + [floor].compactMap { $0 }).max(), offered.version < newest {
            throw BundleUpdateError(.rollback(offered: offered.version, installed: newest), url: updater.statementURL)
        }
        if known.contains(where: { $0.version == offered.version && $0.index != offered.index }) {
            throw BundleUpdateError(.versionReused(version: offered.version), url: updater.statementURL)
        }
    }

    /// The updater's error for a statement that did not verify.
    private static func refusal(_ error: StatementError, url: URL) -> BundleUpdateError {
        switch error.kind {
        case .malformed, .newerFormat: return BundleUpdateError(.invalidStatement, url: url, detail: error.description)
        case .untrustedKey(let keyIDs): return BundleUpdateError(.untrustedKey(keyIDs: keyIDs), url: url)
        case .badSignature(let keyID): return BundleUpdateError(.badSignature(keyID: keyID), url: url)
        }
    }

    // MARK: Unsigned

    /// Revalidates the index itself (``BundleUpdater/Configuration/allowsUnsignedUpdates``).
    private mutating func runUnsigned() async throws -> UpdateResult {
        let state = UpdateState.read(from: updater.stateURL)
        let installedSize = ObjectStore.fileSize(updater.installedIndexURL)
        let conditional = state.flatMap { state in
            state.revalidatedURL == updater.indexURL.absoluteString && installedSize.map(Int64.init) == state.indexByteCount
                ? state : nil
        }
        let incomingIndex = updater.incomingURL.appendingPathComponent(BundleFormat.indexFileName)
        requests += 1
        let headers = conditional?.conditionalHeaders ?? [:]
        let response = try await transport.get(updater.indexURL, headers: headers,
                                               limit: Int64(updater.configuration.maximumIndexByteCount),
                                               destination: incomingIndex, deadline: deadline)
        if response.status == 304, !headers.isEmpty {
            let installed = Self.statement(at: updater.installedStatementURL)
            return result(.upToDate, indexBytes: 0,
                          statement: conditional.flatMap { installed?.statement.index == $0.index ? installed : nil })
        }
        guard response.status == 200, let indexSHA256 = response.sha256 else {
            throw BundleUpdateError(.httpStatus(response.status), url: updater.indexURL)
        }
        let validators = UpdateState.trustworthyValidators(of: response)
        var newState = UpdateState(indexURL: updater.indexURL.absoluteString,
                                   validatedURL: updater.indexURL.absoluteString, etag: validators.etag,
                                   lastModified: validators.lastModified, indexByteCount: response.byteCount,
                                   indexSHA256: indexSHA256, installedAt: Date())
        // An unsigned install keeps the rollback floor of the signed ones before it.
        let installed = Self.statement(at: updater.installedStatementURL)
        newState.highestSignedVersion = [state?.highestSignedVersion, installed?.statement.version].compactMap { $0 }.max()
        if let state, state.indexSHA256 == indexSHA256, installedSize.map(Int64.init) == response.byteCount {
            // The same bytes (re-uploaded, or validators not trusted): nothing to install. A
            // statement that names them (not checked here) still says their version.
            try updater.fileSystem("saving the update state") { try newState.write(to: updater.stateURL) }
            return result(.upToDate, indexBytes: response.byteCount,
                          statement: installed?.statement.index == newState.index ? installed : nil)
        }
        return try await install(incomingIndex, indexBytes: response.byteCount, statement: nil, state: newState)
    }

    // MARK: Index

    /// Checks the index, fetches what it lacks, installs it (and its statement) and collects garbage.
    private mutating func install(_ incomingIndex: URL, indexBytes: Int64, statement: (SignedStatement, URL)?,
                                  state: UpdateState) async throws -> UpdateResult {
        // 2. Check the index like any untrusted file.
        let blobs = try checkIndex(at: incomingIndex)

        // 3. Blobs: reuse what is on disk, verified earlier or in a seed bundle; download the rest.
        var missing: [BlobReference] = []
        var reused = 0
        for blob in blobs {
            if ObjectStore.fileSize(updater.directory.appendingPathComponent(blob.relativePath)) == blob.byteCount
                || ObjectStore.fileSize(verifiedURL(of: blob)) == blob.byteCount {
                reused += 1
            } else if try copyFromSeed(blob) {
                reused += 1
            } else {
                missing.append(blob)
            }
        }
        neededBytes = indexBytes + missing.reduce(Int64(0)) { $0 + Int64($1.byteCount) }
        let downloadedBytes = try await download(missing)
        requests += missing.count

        // 4. Switch, then collect garbage.
        progress?.yield(UpdateProgress(phase: .installing, filesDone: missing.count, filesTotal: missing.count,
                                       bytesDone: downloadedBytes, bytesTotal: downloadedBytes))
        try installRelease(incomingIndex, statement: statement?.1, blobs: blobs, state: state)
        let removed = collectGarbage(keeping: blobs)
        var summary = result(.updated, indexBytes: indexBytes, statement: statement?.0)
        summary.blobsDownloaded = missing.count
        summary.blobBytesDownloaded = downloadedBytes
        summary.blobsReused = reused
        summary.blobsReferenced = blobs.count
        summary.blobBytesReferenced = blobs.reduce(Int64(0)) { $0 + Int64($1.byteCount) }
        summary.blobsRemoved = removed
        return summary
    }

    private func result(_ outcome: UpdateResult.Outcome, indexBytes: Int64, statement: SignedStatement?) -> UpdateResult {
        UpdateResult(outcome: outcome, bundleURL: updater.directory, requests: requests,
                     version: statement?.statement.version, expiresAt: statement?.statement.expiresAt,
                     keyID: statement?.verifiedBy, statementBytes: statementBytes, indexBytes: indexBytes,
                     blobsDownloaded: 0, blobBytesDownloaded: 0, blobsReused: 0, blobsReferenced: 0,
                     blobBytesReferenced: 0, blobsRemoved: 0)
    }

    /// Opens the downloaded index read-only and applies every check; returns the blobs it needs.
    private func checkIndex(at index: URL) throws -> [BlobReference] {
        let url = updater.indexURL
        do {
            let bundle = try CacheBundle(contentsOf: index.deletingLastPathComponent(),
                                         configuration: CacheBundle.Configuration(maximumConnections: 1))
            try bundle.query { connection in
                let check = try connection.statement("PRAGMA quick_check")
                guard try check.step(), check.text("quick_check") == "ok" else {
                    throw BundleUpdateError(.invalidIndex, url: url,
                                            detail: "SQLite integrity check: \(check.text("quick_check"))")
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

    /// Where a blob waits, verified, until its release is installed.
    private func verifiedURL(of blob: BlobReference) -> URL {
        updater.verifiedURL.appendingPathComponent(blob.fileName)
    }

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
                let handle = try FileHandle(forUpdating: staged)
                defer { try? handle.close() }
                try handle.synchronize()  // as a download is: on the medium before it is renamed
                try BundleUpdater.atomicReplace(verifiedURL(of: blob), with: staged)
            }
            return true
        }
        return false
    }

    /// Downloads `blobs`, at most `maximumConcurrentDownloads` at once; returns the bytes.
    private func download(_ blobs: [BlobReference]) async throws -> Int64 {
        let total = blobs.reduce(Int64(0)) { $0 + Int64($1.byteCount) }
        var current = UpdateProgress(phase: .downloadingBlobs, filesTotal: blobs.count, bytesTotal: total)
        progress?.yield(current)
        guard !blobs.isEmpty else { return 0 }
        let width = max(1, updater.configuration.maximumConcurrentDownloads)
        let run = self
        return try await withThrowingTaskGroup(of: Int64.self) { group in
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

    /// Downloads one blob to a partial file, verifies size and hash, and moves it among the
    /// verified blobs.
    private func fetch(_ blob: BlobReference) async throws -> Int64 {
        let url = updater.baseURL.appendingPathComponent(blob.relativePath)
        let staged = updater.incomingURL.appendingPathComponent("\(blob.sha256).part")
        defer { try? FileManager.default.removeItem(at: staged) }
        let response: TransferResponse
        do {
            response = try await transport.get(url, limit: Int64(blob.byteCount), destination: staged, deadline: deadline)
        } catch let error as BundleUpdateError {
            if case .tooLarge = error.kind {
                throw BundleUpdateError(.sizeMismatch(expected: Int64(blob.byteCount), actual: Int64(blob.byteCount) + 1), url: url,
                                        detail: "the server sent more bytes than the index lists")
            }
            throw error
        }
        guard response.status == 200 else {
            throw BundleUpdateError(.httpStatus(response.status), url: url)
        }
        guard response.byteCount == Int64(blob.byteCount) else {
            throw BundleUpdateError(.sizeMismatch(expected: Int64(blob.byteCount), actual: response.byteCount), url: url)
        }
        guard let sha256 = response.sha256, sha256 == blob.sha256 else {
            throw BundleUpdateError(.hashMismatch(expected: blob.sha256, actual: response.sha256 ?? "none"), url: url)
        }
        try updater.fileSystem("storing \(blob.relativePath)") {
            try BundleUpdater.atomicReplace(verifiedURL(of: blob), with: staged)
        }
        return response.byteCount
    }

    // MARK: Install

    /// Moves the release's verified blobs into `objects/` (invisible to readers of the installed
    /// index, which never look at a blob it does not list), flushes the new index, keeps a link to
    /// the one it replaces (whose blobs stay until the next update), renames the new one into
    /// place, puts its statement beside it (an unsigned install removes a stale one) and records
    /// its validators.
    private func installRelease(_ incomingIndex: URL, statement: URL?, blobs: [BlobReference],
                                state: UpdateState) throws {
        try updater.fileSystem("installing the new index") {
            let fileManager = FileManager.default
            for blob in blobs where fileManager.fileExists(atPath: verifiedURL(of: blob).path) {
                let destination = updater.directory.appendingPathComponent(blob.relativePath)
                try fileManager.createDirectory(at: destination.deletingLastPathComponent(),
                                                withIntermediateDirectories: true)
                try BundleUpdater.atomicReplace(destination, with: verifiedURL(of: blob))
            }
            // The index the app will open, on the medium itself (with the blobs before it) before
            // it replaces the installed one.
            let handle = try FileHandle(forUpdating: incomingIndex)
            defer { try? handle.close() }
            guard LibC.flushToStorage(handle.fileDescriptor) else {
                throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO)
            }
            try? fileManager.removeItem(at: updater.previousIndexURL)
            if fileManager.fileExists(atPath: updater.installedIndexURL.path) {
                try fileManager.linkItem(at: updater.installedIndexURL, to: updater.previousIndexURL)
            }
            try BundleUpdater.atomicReplace(updater.installedIndexURL, with: incomingIndex)
            if let statement {
                try BundleUpdater.atomicReplace(updater.installedStatementURL, with: statement)
            } else if fileManager.fileExists(atPath: updater.installedStatementURL.path) {
                try fileManager.removeItem(at: updater.installedStatementURL)
            }
            try state.write(to: updater.stateURL)
        }
        removeVerifiedBlobs()
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

    /// Partial files and the downloaded statement or index of an earlier or failed update.
    private func removeLeftovers() {
        Self.empty(updater.incomingURL)
    }

    /// Blobs verified for a release that was refused, or installed (those of other releases).
    private func removeVerifiedBlobs() {
        Self.empty(updater.verifiedURL)
    }

    private static func empty(_ folder: URL) {
        let fileManager = FileManager.default
        for name in (try? fileManager.contentsOfDirectory(atPath: folder.path)) ?? [] {
            try? fileManager.removeItem(at: folder.appendingPathComponent(name))
        }
    }
}
