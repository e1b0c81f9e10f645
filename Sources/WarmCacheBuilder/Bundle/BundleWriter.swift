import Foundation
import WarmCache

/// Writes a bundle so that a crash or error at any point leaves the previous bundle intact.
///
/// The protocol (documented in `docs/bundle-format.md`, "Publishing"):
/// 1. ``prepare()`` checks the output is a bundle (or absent), creates it, and removes leftovers
///    of interrupted runs (`.tmp/`, stray `index-*.sqlite.tmp` files).
/// 2. ``storeBlob(_:format:)`` adds encoded images to `objects/`: each is written to `.tmp/` and
///    renamed into place. Content addressing makes this safe while the old index is live: a new
///    blob is invisible to old readers, and an existing blob is never rewritten.
/// 3. ``add(_:variants:)`` stages each finished source's index rows on disk (`.tmp/`), so a
///    run of any size holds no rows in memory.
/// 4. ``commit(createdAt:)`` checks that every blob the staged rows reference exists, builds the
///    new index from them in a temporary file in one transaction, flushes the new blobs, their
///    directories and the index to disk (one `syncfs` on Linux past 256 new blobs; file by file
///    otherwise, most already flushed by a ``BlobFlusher`` while the run went on) and renames
///    the index over `index.sqlite`: the one atomic step that switches readers from the old bundle
///    to the new one. One flush of everything before that rename gives the same guarantee as a
///    flush per blob, at a fraction of the cost.
///    (``commit(_:)`` stages a whole ``BundleContents`` and commits it.)
/// 5. After the switch, blobs no index references are deleted.
///
/// A run that fails before step 4 leaves the old index and old blobs untouched, and ``abandon()``
/// deletes what it added; a run killed before then leaves `.tmp/`, and the next run of any kind
/// deletes what it left (its commit collects garbage, its ``abandon()`` sweeps `objects/`).
public final class BundleWriter: Sendable {
    public let bundleURL: URL
    public let generator: String
    /// `bundleURL.path`, for building blob paths without `URL` arithmetic per blob.
    private let bundlePath: String

    private var objectsURL: URL { bundleURL.appendingPathComponent(BundleFormat.objectsDirectoryName) }
    private var stagingURL: URL { bundleURL.appendingPathComponent(".tmp") }
    private var stagingDirectoryPath: String { bundlePath + "/.tmp" }
    private var indexURL: URL { bundleURL.appendingPathComponent(BundleFormat.indexFileName) }

    public static let defaultGenerator = "warm-cache \(WarmCacheVersion.current)"

    /// Points in ``commit(_:)`` where tests make the writer fail, as a crash would.
    enum Stage: Sendable {
        case indexBuilt
    }
    private let injectFault: @Sendable (Stage) throws -> Void
    /// The index rows staged so far and the blobs this writer added to `objects/` (absent
    /// before), so they can be flushed before publishing or taken back by ``abandon()``.
    /// Created on first use.
    private let staged = Locked<IndexBuilder?>(nil)
    /// `objects/`, held open from ``prepare()`` on: a re-warm checks every blob it reuses.
    private let objects = Locked<OpenFolder?>(nil)
    /// Fan-out directories (`objects/<aa>`) known to exist, so each is created once per run.
    private let fanouts = Locked<Set<String>>([])
    /// Flushes the blobs ``storeBlob(_:format:)`` adds while the run goes on (created with the
    /// first one; the commit flushes what it has not).
    private let flusher = Locked<BlobFlusher?>(nil)
    /// Whether ``prepare()`` found what an interrupted run leaves (its staging folder or a
    /// half-built index): then the next commit collects garbage even if it changes nothing.
    private let foundInterruptedRun = Locked(false)
    /// Set when a file system operation failed for want of space (``hasRunOutOfSpace``).
    private let ranOutOfSpace = Locked(false)
    /// ``bytesWritten``.
    private let written = Locked(0)
    /// Folders above the bundle that ``prepare()`` created (deepest first): an abandoned first
    /// run removes them again when they are empty, so `--strict` leaves no empty `Build/` behind.
    private let createdParents = Locked<[URL]>([])
    private var stagingPath: String { stagingURL.appendingPathComponent("index-staging.sqlite").path }
    /// Called with the new index, complete and within budget, just before it replaces the one in
    /// place: what must be ready before a bundle is published (its signed statement). A throw
    /// publishes nothing.
    private let beforePublishing = Locked<(@Sendable (URL) throws -> Void)?>(nil)

    public convenience init(bundleURL: URL, generator: String = BundleWriter.defaultGenerator) {
        self.init(bundleURL: bundleURL, generator: generator, injectFault: { _ in })
    }

    /// Sets what runs with each new index just before it is published (``beforePublishing``).
    public func setBeforePublishing(_ body: (@Sendable (URL) throws -> Void)?) {
        beforePublishing.withLock { $0 = body }
    }

    init(bundleURL: URL, generator: String, injectFault: @escaping @Sendable (Stage) throws -> Void) {
        self.bundleURL = bundleURL.standardizedFileURL
        bundlePath = self.bundleURL.path
        self.generator = generator
        self.injectFault = injectFault
    }

    /// Whether `name`, at the top of a bundle folder, is what a killed run left: its staging
    /// folder, a half-built index, or a signed statement not yet renamed into place.
    package static func isLeftover(_ name: String) -> Bool {
        name == ".tmp" || ObjectStore.isIndexTemporary(name)
            || (name.hasPrefix(".\(BundleFormat.statementFileName).") && name.hasSuffix(".tmp"))
    }

    /// Whether a published bundle (an `index.sqlite`) exists at the output.
    public var hasPublishedBundle: Bool {
        FileManager.default.fileExists(atPath: indexURL.path)
    }

    /// Makes the output ready for blobs. Refuses a path that holds something other than a bundle.
    public func prepare() throws {
        let fileManager = FileManager.default
        if let refusal = ObjectStore.refusal(toWriteBundleAt: bundleURL.path) {
            throw BundleWriterError(.outputIsNotABundle, bundleURL: bundleURL, detail: refusal)
        }
        let entries = (try? fileManager.contentsOfDirectory(atPath: bundleURL.path)) ?? []
        discardStaged()
        fanouts.withLock { $0.removeAll() }
        ranOutOfSpace.withLock { $0 = false }
        var missingParents: [URL] = []
        var parent = bundleURL.deletingLastPathComponent()
        while parent.path != "/", !fileManager.fileExists(atPath: parent.path) {
            missingParents.append(parent)
            parent = parent.deletingLastPathComponent()
        }
        createdParents.withLock { $0 = missingParents }
        let halfBuiltFiles = entries.filter { Self.isLeftover($0) && $0 != ".tmp" }
        foundInterruptedRun.withLock { $0 = entries.contains(".tmp") || !halfBuiltFiles.isEmpty }
        try fileSystem("creating the bundle directories") {
            try fileManager.createDirectory(at: objectsURL, withIntermediateDirectories: true)
            objects.withLock { $0 = OpenFolder(objectsOf: bundlePath) }
            try? fileManager.removeItem(at: stagingURL)
            try fileManager.createDirectory(at: stagingURL, withIntermediateDirectories: true)
            for entry in halfBuiltFiles {
                try? fileManager.removeItem(at: bundleURL.appendingPathComponent(entry))
            }
        }
    }

    /// Whether a file system operation of this run failed because the disk ran out of space or
    /// inodes (``DiskSpace``): later failures (a staging index damaged by the short write) are
    /// then consequences of it.
    public var hasRunOutOfSpace: Bool {
        ranOutOfSpace.withLock { $0 }
    }

    /// Bytes of the blobs this run wrote (copies and new files; hard links take none).
    public var bytesWritten: Int {
        written.withLock { $0 }
    }

    /// The path of a blob inside this bundle.
    public func blobURL(sha256: String, format: ImageFormat) -> URL {
        bundleURL.appendingPathComponent(BundleFormat.objectPath(sha256: sha256, format: format))
    }

    /// Adds an encoded image to the object store unless an identical one is there. Thread-safe.
    @discardableResult
    public func storeBlob(_ data: Data, format: ImageFormat) throws -> StoredBlob {
        let sha256 = ContentHash.sha256(data)
        let objectPath = BundleFormat.objectPath(sha256: sha256, format: format)
        let destination = bundlePath + "/" + objectPath
        let existing = ObjectStore.fileSize(atPath: destination)
        // An existing blob is kept only if it holds exactly these bytes: a damaged one is replaced.
        if let existing, existing == data.count, DurableFile.contents(atPath: destination) == data {
            return StoredBlob(sha256: sha256, format: format, byteCount: data.count, written: false)
        }
        try fileSystem("storing blob \(objectPath)") {
            let fanout = String(sha256.prefix(2))
            if fanouts.withLock({ !$0.contains(fanout) }) {
                try DurableFile.ensureFolder(atPath: bundlePath + "/" + BundleFormat.objectsDirectoryName + "/" + fanout)
                fanouts.withLock { _ = $0.insert(fanout) }
            }
            let temporary = stagingDirectoryPath + "/" + sha256 + "." + UUID().uuidString
            written.withLock { $0 += data.count }
            try DurableFile.write(data, toPath: temporary, flush: false)
            try DurableFile.move(atPath: temporary, toPath: destination)
        }
        if existing == nil {
            try withStaging { try $0.recordAdded(destination) }
        }
        flusher.withLock { flusher in
            let running = flusher ?? BlobFlusher(limit: Self.fileByFileFlushLimit)
            flusher = running
            return running
        }.flushSoon(destination)
        return StoredBlob(sha256: sha256, format: format, byteCount: data.count, written: true)
    }

    /// Adds the blob at `file` (another bundle's, named by its hash) to the object store unless an
    /// identical one is there: as a hard link where the file system allows, else as a copy. Like
    /// every new blob, it is flushed by ``commit(createdAt:manifestFingerprint:shard:)`` before the
    /// index that lists it is published. Thread-safe.
    @discardableResult
    public func adoptBlob(at file: URL, sha256: String, format: ImageFormat, byteCount: Int) throws -> StoredBlob {
        try adoptBlob(atPath: file.path, sha256: sha256, format: format, byteCount: byteCount)
    }

    /// ``adoptBlob(at:sha256:format:byteCount:)`` with a path: a merge adopts hundreds of thousands
    /// of blobs, and building a `URL` for each costs more than linking it.
    @discardableResult
    package func adoptBlob(atPath file: String, sha256: String, format: ImageFormat,
                           byteCount: Int) throws -> StoredBlob {
        let objectPath = BundleFormat.objectPath(sha256: sha256, format: format)
        let destination = bundlePath + "/" + objectPath
        guard ObjectStore.fileSize(atPath: file) == byteCount else {
            throw BundleWriterError(.missingBlob, bundleURL: bundleURL,
                                    detail: "\(file) is missing or is not \(byteCount) bytes")
        }
        let fanout = String(sha256.prefix(2))
        if fanouts.withLock({ !$0.contains(fanout) }) {
            try fileSystem("adding blob \(objectPath)") {
                try FileManager.default.createDirectory(
                    at: URL(fileURLWithPath: destination).deletingLastPathComponent(), withIntermediateDirectories: true)
            }
            fanouts.withLock { _ = $0.insert(fanout) }
        }
        // A hard link is one directory entry. An existing file of the right size is the blob
        // already (content addressing); a wrong-sized leftover is replaced. Across file systems
        // (or where links are not allowed) the bytes are copied, through .tmp/ so the blob
        // appears whole.
        if link(file, destination) != 0 {
            if errno == EEXIST, ObjectStore.fileSize(atPath: destination) == byteCount {
                return StoredBlob(sha256: sha256, format: format, byteCount: byteCount, written: false)
            }
            try fileSystem("adding blob \(objectPath)") {
                let data = try Data(contentsOf: URL(fileURLWithPath: file), options: .mappedIfSafe)
                let temporary = stagingURL.appendingPathComponent("\(sha256).\(UUID().uuidString)")
                written.withLock { $0 += data.count }
                try DurableFile.write(data, to: temporary, flush: false)
                try DurableFile.move(temporary, to: URL(fileURLWithPath: destination))
            }
        }
        try withStaging { try $0.recordAdded(destination) }
        return StoredBlob(sha256: sha256, format: format, byteCount: byteCount, written: true)
    }

    /// ``adoptBlob(atPath:sha256:format:byteCount:)`` for many blobs of the bundle at
    /// `sourceBundlePath` at once (`warm-cache merge`): hard links are made on every core, with
    /// paths relative to both `objects/` folders. A blob that cannot be linked (another file
    /// system, a wrong-sized leftover in the way) takes the one-by-one path, which copies or
    /// replaces. Returns how many blobs were added. Thread-safe.
    package func adoptBlobs(_ blobs: [(sha256: String, format: ImageFormat, byteCount: Int)],
                            fromBundleAt sourceBundlePath: String) throws -> Int {
        guard !blobs.isEmpty else { return 0 }
        try fileSystem("creating the objects folder") {
            try FileManager.default.createDirectory(at: objectsURL, withIntermediateDirectories: true)
        }
        guard let source = OpenFolder(objectsOf: sourceBundlePath),
              let destination = OpenFolder(objectsOf: bundlePath) else {
            return try blobs.reduce(0) { added, blob in
                try adoptBlob(atPath: sourceBundlePath + "/" + BundleFormat.objectPath(sha256: blob.sha256,
                                                                                       format: blob.format),
                              sha256: blob.sha256, format: blob.format, byteCount: blob.byteCount).written
                    ? added + 1 : added
            }
        }
        enum Outcome { case added, present, missing, oneByOne }
        let shared = Locked([Outcome](repeating: .oneByOne, count: blobs.count))
        let workers = max(1, min(ProcessInfo.processInfo.activeProcessorCount, 8))
        DispatchQueue.concurrentPerform(iterations: workers) { worker in
            var mine: [(Int, Outcome)] = []
            for index in stride(from: worker, to: blobs.count, by: workers) {
                let blob = blobs[index]
                let path = OpenFolder.blobPath(sha256: blob.sha256, format: blob.format)
                guard source.fileSize(path) == blob.byteCount else {
                    mine.append((index, .missing))
                    continue
                }
                var error = source.link(path, into: destination)
                if error == ENOENT {
                    // The fan-out folder is new: created only for a blob that is there to link.
                    let fanout = String(blob.sha256.prefix(2))
                    if destination.makeFolder(fanout) {
                        fanouts.withLock { _ = $0.insert(fanout) }
                        error = source.link(path, into: destination)
                    }
                }
                switch error {
                case nil: mine.append((index, .added))
                case EEXIST where destination.fileSize(path) == blob.byteCount: mine.append((index, .present))
                default: mine.append((index, .oneByOne))
                }
            }
            shared.withLock { outcomes in
                for (index, outcome) in mine { outcomes[index] = outcome }
            }
        }
        let outcomes = shared.withLock { $0 }
        // Every link made is recorded before any error is raised, so that abandoning the run
        // removes them all.
        var added = 0
        try withStaging { builder in
            for (blob, outcome) in zip(blobs, outcomes) where outcome == .added {
                try builder.recordAdded(bundlePath + "/" + BundleFormat.objectPath(sha256: blob.sha256,
                                                                                   format: blob.format))
                added += 1
            }
        }
        for (blob, outcome) in zip(blobs, outcomes) where outcome == .missing || outcome == .oneByOne {
            let path = sourceBundlePath + "/" + BundleFormat.objectPath(sha256: blob.sha256, format: blob.format)
            // The one-by-one path names a missing blob, copies across file systems and replaces
            // a damaged leftover.
            if try adoptBlob(atPath: path, sha256: blob.sha256, format: blob.format,
                             byteCount: blob.byteCount).written {
                added += 1
            }
        }
        return added
    }

    /// Whether the store has a file for this blob with the right size (no content check).
    public func hasBlob(sha256: String, format: ImageFormat, byteCount: Int) -> Bool {
        ObjectStore.fileSize(atPath: bundlePath + "/" + BundleFormat.objectPath(sha256: sha256, format: format))
            == byteCount
    }

    /// Whether a blob that a run means to reuse is intact: present, of its size, and its bytes hash
    /// to its name. When it is not, the caller renders it again, and ``storeBlob(_:format:)``
    /// replaces the damaged file (atomically, by rename).
    public func hasIntactBlob(sha256: String, format: ImageFormat, byteCount: Int) -> Bool {
        let path = bundlePath + "/" + BundleFormat.objectPath(sha256: sha256, format: format)
        guard ObjectStore.fileSize(atPath: path) == byteCount else { return false }
        let data: Data?
        if byteCount <= 256 * 1024 {
            data = DurableFile.contents(atPath: path)
        } else {
            data = try? Data(contentsOf: URL(fileURLWithPath: path), options: .mappedIfSafe)
        }
        guard let data, data.count == byteCount else { return false }
        return ContentHash.sha256(data) == sha256
    }

    /// The stamp of a stored blob's file, or `nil` if there is none.
    func blobStamp(sha256: String, format: ImageFormat) -> FileStamp? {
        if let objects = objects.withLock({ $0 }) {
            return objects.stamp(OpenFolder.blobPath(sha256: sha256, format: format))
        }
        return FileStamp(atPath: bundlePath + "/" + BundleFormat.objectPath(sha256: sha256, format: format))
    }

    /// Whether a blob that a run means to reuse is intact, trusting a file that still has the
    /// stamp `known` (recorded when its bytes were last known to be right: written or hashed) with
    /// one `lstat`, and hashing any other (``hasIntactBlob(sha256:format:byteCount:)``). Returns
    /// the stamp to record for it next time (`nil` if the file changed while it was hashed).
    func checkBlob(sha256: String, format: ImageFormat, byteCount: Int, known: FileStamp?)
        -> (intact: Bool, stamp: FileStamp?) {
        guard let found = blobStamp(sha256: sha256, format: format), found.size == byteCount else { return (false, nil) }
        if found == known { return (true, found) }
        guard hasIntactBlob(sha256: sha256, format: format, byteCount: byteCount) else { return (false, nil) }
        return (true, blobStamp(sha256: sha256, format: format) == found ? found : nil)
    }

    /// Stages one source's index rows: they are published by the next ``commit(createdAt:)``.
    /// Thread-safe. Throws ``BundleWriterError/Kind/inconsistentContents`` for a source or a
    /// variant key staged before.
    public func add(_ source: BundleContents.Source, variants: [BundleContents.Variant]) throws {
        try withStaging { builder in
            try builder.add(source, variants: variants)
        }
    }

    /// Lets the rows added from now on wait unstaged until the commit needs them or a blob is
    /// added (``IndexBuilder/deferRows()``): a commit that finds the index unchanged by its
    /// record (``commit(createdAt:manifestFingerprint:shard:lastPublished:)``) then never stages
    /// them. A source or key added twice is then refused by the commit, not by ``add(_:variants:)``.
    func deferRows() throws {
        try withStaging { try $0.deferRows() }
    }

    /// Stages the index rows of another bundle (`warm-cache merge`) that are not staged yet, with
    /// the same staging database and publication as a warm's rows. A source or key staged before
    /// must have the same row (presets aside, which are united): otherwise nothing of `bundle` is
    /// staged and the conflict is returned. Blobs are added separately (``adoptBlob(at:sha256:format:byteCount:)``).
    /// Thread-safe.
    func mergeIndex(of bundle: URL) throws -> IndexMerge.Conflict? {
        try withStaging { builder in
            try builder.merge(indexAt: bundle.appendingPathComponent(BundleFormat.indexFileName).path)
        }
    }

    /// Runs `body` with the staging database, creating it on first use, under its lock.
    private func withStaging<T>(_ body: (IndexBuilder) throws -> T) throws -> T {
        try staged.withLock { existing in
            do {
                let builder = try existing ?? IndexBuilder(generator: generator, stagingPath: stagingPath)
                existing = builder
                return try body(builder)
            } catch let error as IndexBuilderError {
                throw BundleWriterError(.inconsistentContents, bundleURL: bundleURL, detail: error.description)
            } catch let error as BundleWriterError {
                throw error
            } catch {
                note(error)
                throw BundleWriterError(.index, bundleURL: bundleURL, detail: "staging rows: \(PlainReason.of(error))")
            }
        }
    }

    /// Publishes `contents` as the bundle's new index, atomically, then deletes unreferenced blobs.
    /// Rows staged before are discarded.
    @discardableResult
    public func commit(_ contents: BundleContents) throws -> CommitSummary {
        try withStaging { try $0.clearRows() }
        let variants = Dictionary(grouping: contents.variants, by: \.key.source)
        var sources = Set<SourceIdentifier>()
        for source in contents.sources {
            sources.insert(source.identifier)
            try add(source, variants: variants[source.identifier] ?? [])
        }
        if let orphan = contents.variants.first(where: { !sources.contains($0.key.source) }) {
            throw BundleWriterError(.inconsistentContents, bundleURL: bundleURL,
                                    detail: "variant \(orphan.key) belongs to no listed source")
        }
        return try commit(createdAt: contents.createdAt, manifestFingerprint: contents.manifestFingerprint,
                          shard: contents.shard)
    }

    /// Publishes the staged rows as the bundle's new index, atomically, then deletes
    /// unreferenced blobs. `createdAt` goes to `meta.created_at` only when set; leave it `nil`
    /// for byte-identical re-runs. `manifestFingerprint` and `shard` go to `meta` when set (see
    /// ``BundleContents``).
    @discardableResult
    public func commit(createdAt: Date? = nil, manifestFingerprint: String? = nil,
                       shard: Shard? = nil) throws -> CommitSummary {
        try commit(createdAt: createdAt, manifestFingerprint: manifestFingerprint, shard: shard, lastPublished: nil)
            .summary
    }

    /// ``commit(createdAt:manifestFingerprint:shard:)``, told what this writer's caller knows of
    /// the index in place (``PublishedIndex``): when it still has that stamp and the staged rows
    /// have that digest, nothing changed and the rows are not compared. Returns what is then known
    /// of the index in place (`nil` when its rows were staged other than one source at a time).
    ///
    /// The summary carries the bundle's ``BundlePayload``. With a `budget`, an index whose files
    /// would take more bytes is not published: ``BudgetExceeded`` is thrown instead (the caller
    /// abandons the run, which removes the blobs it added).
    func commit(createdAt: Date? = nil, manifestFingerprint: String? = nil, shard: Shard? = nil,
                lastPublished: PublishedIndex?, budget: Int? = nil)
        throws -> (summary: CommitSummary, published: PublishedIndex?) {
        try staged.withLock { existing in
            let builder = try existing ?? IndexBuilder(generator: generator, stagingPath: stagingPath)
            existing = builder  // kept on failure, for abandon() to discard
            let committed = try commit(builder, createdAt: createdAt, manifestFingerprint: manifestFingerprint,
                                       shard: shard, lastPublished: lastPublished, budget: budget)
            existing = nil
            return committed
        }
    }

    /// Up to this many new blobs, a commit flushes them one by one (those ``BlobFlusher`` has not
    /// flushed yet) instead of the whole file system.
    static let fileByFileFlushLimit = 256

    /// What one commit publishes: the staged rows and the index's own fields.
    private struct Commit {
        let builder: IndexBuilder
        let createdAt: Date?
        let manifestFingerprint: String?
        let shard: Shard?
        let budget: Int?
        /// The staged contents' digest (`nil` when it cannot be computed: then nothing is
        /// remembered of the index for the next run).
        let digest: String?
    }

    /// Publishes `builder`'s rows, in the order of what each step decides: whether the index in
    /// place already holds them (then nothing is written), whether every blob they name is on
    /// disk, then the new index, flushed with its new blobs and swapped in, then the garbage.
    private func commit(_ builder: IndexBuilder, createdAt: Date?, manifestFingerprint: String?, shard: Shard?,
                        lastPublished: PublishedIndex?, budget: Int?)
        throws -> (summary: CommitSummary, published: PublishedIndex?) {
        let flushedEarly = stopFlusher()
        let digest = try fileSystem("reading staged rows") {
            try builder.contentsDigest(createdAt: createdAt, manifestFingerprint: manifestFingerprint, shard: shard)
        }
        let commit = Commit(builder: builder, createdAt: createdAt, manifestFingerprint: manifestFingerprint,
                            shard: shard, budget: budget, digest: digest)
        // Nothing changed (a no-op re-warm): the staged rows are the published ones, no blob was
        // added, and no interrupted run left garbage. Publishing would only write, flush and rename
        // an index with the same contents, and list every blob for garbage the last commit removed.
        // (Every blob the rows name was checked when its source was looked up or stored.)
        let mayBeUnchanged = try fileSystem("reading staged rows") {
            try builder.count(StagedBlobs.AddedBlobs.table) == 0 && !foundInterruptedRun.withLock { $0 }
                && FileManager.default.fileExists(atPath: indexURL.path)
        }
        if mayBeUnchanged, let lastPublished, let unchanged = try unchangedSinceLastCommit(commit, lastPublished) {
            return unchanged
        }
        try stageDeferredRows(of: builder)
        if mayBeUnchanged, let unchanged = try unchangedByComparison(commit) {
            return unchanged
        }

        // (An unchanged index removes no source.)
        let removedSources = FileManager.default.fileExists(atPath: indexURL.path)
            ? builder.sourcesMissing(fromIndexAt: indexURL.path) : []
        let blobs = try checkBlobs(of: builder)
        let temporary = bundleURL.appendingPathComponent("index-\(UUID().uuidString).sqlite.tmp")
        defer { try? FileManager.default.removeItem(at: temporary) }
        do {
            try builder.publish(to: temporary.path, createdAt: createdAt, manifestFingerprint: manifestFingerprint,
                                shard: shard)
            try injectFault(.indexBuilt)
        } catch {
            note(error)
            throw BundleWriterError(.index, bundleURL: bundleURL, detail: "\(PlainReason.of(error))")
        }
        let payload = try weigh(indexAt: temporary.path, budget: budget)
        try beforePublishing.withLock { $0 }?(temporary)
        try swapIn(temporary, with: builder, flushedEarly: flushedEarly)

        let removed = collectGarbage(keeping: builder)
        fanouts.withLock { $0.removeAll() }
        let summary = CommitSummary(sourceCount: (try? builder.count(IndexSchema.Sources.table.name)) ?? 0,
                                    variantCount: (try? builder.count(IndexSchema.Variants.table.name)) ?? 0,
                                    blobCount: blobs.count, blobBytes: blobs.bytes, blobsRemoved: removed,
                                    removedSources: removedSources, payload: payload)
        return finished(commit, summary)
    }

    /// The payload of the index at `path`, refused when over the budget.
    private func weigh(indexAt path: String, budget: Int?) throws -> BundlePayload {
        let payload = try fileSystem("measuring the index") { try BundlePayload.measure(indexAt: path) }
        try BudgetExceeded.check(budget, payload: payload, indexBytes: ObjectStore.fileSize(atPath: path) ?? 0,
                                 bundlePath: bundleURL.path)
        return payload
    }

    /// Ends a commit that published (or found published) `summary`: the staging goes, and what
    /// the next run needs to know of the index is returned with it.
    private func finished(_ commit: Commit, _ summary: CommitSummary)
        -> (summary: CommitSummary, published: PublishedIndex?) {
        commit.builder.discard()
        try? FileManager.default.removeItem(at: stagingURL)
        guard let digest = commit.digest, let stamp = FileStamp(atPath: indexURL.path) else { return (summary, nil) }
        return (summary, PublishedIndex(stamp: stamp, contentsDigest: digest, sourceCount: summary.sourceCount,
                                        variantCount: summary.variantCount, blobCount: summary.blobCount,
                                        blobBytes: summary.blobBytes, payload: summary.payload))
    }

    /// The fast way to "nothing changed": the index in place is the one the last commit left,
    /// untouched since (its file stamp), with these contents (their digest). `nil` otherwise.
    private func unchangedSinceLastCommit(_ commit: Commit, _ lastPublished: PublishedIndex) throws
        -> (summary: CommitSummary, published: PublishedIndex?)? {
        guard let digest = commit.digest, digest == lastPublished.contentsDigest,
              FileStamp(atPath: indexURL.path) == lastPublished.stamp else { return nil }
        let payload = try lastPublished.payload.map { known in
            try BudgetExceeded.check(commit.budget, payload: known, indexBytes: ObjectStore.fileSize(indexURL) ?? 0,
                                     bundlePath: bundleURL.path)
            return known
        } ?? weigh(indexAt: indexURL.path, budget: commit.budget)
        commit.builder.discard()
        try? FileManager.default.removeItem(at: stagingURL)
        let summary = CommitSummary(sourceCount: lastPublished.sourceCount, variantCount: lastPublished.variantCount,
                                    blobCount: lastPublished.blobCount, blobBytes: lastPublished.blobBytes,
                                    blobsRemoved: 0, payload: payload, unchanged: true)
        var published = lastPublished
        published.payload = payload
        return (summary, published)
    }

    /// Rows that waited unstaged are staged now: a source or key added twice is found here.
    private func stageDeferredRows(of builder: IndexBuilder) throws {
        do {
            try builder.stageDeferredRows()
        } catch let error as IndexBuilderError {
            throw BundleWriterError(.inconsistentContents, bundleURL: bundleURL, detail: error.description)
        } catch {
            note(error)
            throw BundleWriterError(.index, bundleURL: bundleURL, detail: "staging rows: \(PlainReason.of(error))")
        }
    }

    /// The slower way to "nothing changed": the staged rows compared with the index in place. The
    /// summary's blob totals are read beside the comparison (on another thread, another
    /// connection). `nil` when they differ.
    private func unchangedByComparison(_ commit: Commit) throws -> (summary: CommitSummary, published: PublishedIndex?)? {
        let builder = commit.builder
        let blobTotals = Locked<Result<(count: Int, bytes: Int), Error>?>(nil)
        let counting = DispatchGroup()
        try fileSystem("reading staged rows") { try builder.endStaging() }
        let stagingPath = builder.stagingPath
        DispatchQueue.global().async(group: counting) {
            let totals = Result { try IndexBuilder.blobTotals(ofStagingAt: stagingPath) }
            blobTotals.withLock { $0 = totals }
        }
        let unchanged = builder.matches(indexAt: indexURL.path, createdAt: commit.createdAt,
                                        manifestFingerprint: commit.manifestFingerprint, shard: commit.shard)
        counting.wait()  // before the staging file is written again (its blob index)
        guard unchanged, let totals = blobTotals.withLock({ $0 }) else { return nil }
        let blobs = try fileSystem("reading staged rows") { try totals.get() }
        let payload = try weigh(indexAt: indexURL.path, budget: commit.budget)
        let summary = CommitSummary(sourceCount: (try? builder.count(IndexSchema.Sources.table.name)) ?? 0,
                                    variantCount: (try? builder.count(IndexSchema.Variants.table.name)) ?? 0,
                                    blobCount: blobs.count, blobBytes: blobs.bytes, blobsRemoved: 0,
                                    payload: payload, unchanged: true)
        return finished(commit, summary)
    }

    /// Every blob the rows name, checked on disk at its size; their number and bytes.
    private func checkBlobs(of builder: IndexBuilder) throws -> (count: Int, bytes: Int) {
        var count = 0
        var bytes = 0
        let objects = OpenFolder(objectsOf: bundlePath)
        do {
            try builder.forEachBlob { sha256, format, byteCount in
                let size = objects?.fileSize(OpenFolder.blobPath(sha256: sha256, format: format))
                guard size == byteCount else {
                    throw BundleWriterError(.missingBlob, bundleURL: bundleURL,
                                            detail: "blob \(BundleFormat.objectPath(sha256: sha256, format: format)) "
                                                + "is missing or has the wrong size")
                }
                count += 1
                bytes += byteCount
            }
        } catch let error as BundleWriterError {
            throw error
        } catch {
            note(error)
            throw BundleWriterError(.index, bundleURL: bundleURL, detail: "reading staged rows: \(PlainReason.of(error))")
        }
        return (count, bytes)
    }

    /// Makes the new index and everything it names durable, then swaps it in for the old one.
    /// After many new blobs one syncfs is far cheaper than a flush per file; after a few (a
    /// re-warm) flushing just those does not wait for whatever else the disk holds dirty.
    private func swapIn(_ temporary: URL, with builder: IndexBuilder, flushedEarly: Set<String>) throws {
        try fileSystem("publishing the index") {
            let flushedAll = try builder.count(StagedBlobs.AddedBlobs.table) > Self.fileByFileFlushLimit
                && DurableFile.flushFileSystem(containing: bundleURL)
            if !flushedAll {
                var directories = Set<String>()
                try builder.forEachAdded { path in
                    guard !flushedEarly.contains(path) else { return }
                    try DurableFile.sync(URL(fileURLWithPath: path))
                    directories.insert((path as NSString).deletingLastPathComponent)
                }
                directories.forEach { DurableFile.syncDirectory(URL(fileURLWithPath: $0)) }
                DurableFile.syncDirectory(objectsURL)
            }
            // Last, the index: on Apple platforms this one flush also puts the blobs above on the
            // medium (their `fsync` reached only the drive's cache).
            try DurableFile.syncToStorage(temporary)
            try DurableFile.replace(indexURL, with: temporary)
        }
    }

    /// Stops the blob flusher, if one runs; returns the blobs it flushed.
    private func stopFlusher() -> Set<String> {
        let running = flusher.withLock { flusher in
            defer { flusher = nil }
            return flusher
        }
        return running?.stop() ?? []
    }

    private func discardStaged() {
        _ = stopFlusher()
        staged.withLock { builder in
            builder?.discard()
            builder = nil
        }
    }

    /// Gives up a run: removes staging files and every blob the published index does not list,
    /// so a published bundle is left exactly as it was, and removes the whole output if no bundle
    /// was ever published there.
    ///
    /// The blobs are found by listing `objects/` against the published index, not from this run's
    /// own record of what it added: that record is a file too, and the disk that failed the run
    /// may have failed it as well. The staging folder goes last: if anything stops the clean-up
    /// half-way, the next run of any kind finds it and collects the rest
    /// (``commit(createdAt:manifestFingerprint:shard:)`` then never skips its garbage collection).
    public func abandon() {
        let fileManager = FileManager.default
        fanouts.withLock { $0.removeAll() }
        discardStaged()
        guard hasPublishedBundle else {
            try? fileManager.removeItem(at: bundleURL)
            // rmdir(2) removes a folder only when it is empty: whatever else arrived there stays.
            for folder in createdParents.withLock({ $0 }) where rmdir(folder.path) != 0 { break }
            return
        }
        guard let listed = try? ObjectStore.referencedFileNames(ofIndexAt: indexURL.path) else {
            return  // the published index cannot be read: nothing is deleted on a guess
        }
        let kept = listed.union(ObjectStore.keptFileNames(in: bundleURL))
        _ = ObjectStore.removeUnreferenced(in: bundleURL) { kept.contains($0) }
        try? fileManager.removeItem(at: stagingURL)
    }

    // MARK: Internals

    /// Deletes blob files under `objects/` that no staged row references; returns how many.
    private func collectGarbage(keeping builder: IndexBuilder) -> Int {
        ObjectStore.removeUnreferenced(in: bundleURL) { BundleWriter.isReferenced($0, by: builder) }
    }

    private func fileSystem<T>(_ action: String, _ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as BundleWriterError {
            throw error
        } catch {
            note(error)
            throw BundleWriterError(.fileSystem, bundleURL: bundleURL, detail: "\(action): \(PlainReason.of(error))")
        }
    }

    /// Whether `name` (`<sha256>.<extension>`) is a blob the staged rows reference. Anything that
    /// cannot be checked counts as referenced: garbage collection never guesses.
    private static func isReferenced(_ name: String, by builder: IndexBuilder) -> Bool {
        guard let dot = name.firstIndex(of: ".") else { return false }
        let sha256 = String(name[..<dot])
        let fileExtension = String(name[name.index(after: dot)...])
        return (try? builder.references(sha256: sha256, fileExtension: fileExtension)) ?? true
    }

    /// Remembers that the disk ran out of space, if `error` says so (``hasRunOutOfSpace``).
    private func note(_ error: Error) {
        if DiskSpace.isExhausted(by: error) { ranOutOfSpace.withLock { $0 = true } }
    }
}
