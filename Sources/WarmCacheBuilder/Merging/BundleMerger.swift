import Foundation
import WarmCache

/// Combines partial bundles (the shards of one manifest, warmed with `--shard I/N`) into one
/// bundle: `warm-cache merge -o Images.warmcache PART...`.
///
/// - Index rows are unioned and written by the same ``BundleWriter`` and index builder as `warm`,
///   so the shards of a manifest merge into exactly the bundle one unsharded run writes. Each
///   part's rows go into the writer's on-disk staging index set-wise, inside SQLite, never
///   through memory: memory stays flat however many sources the parts hold (100,000 sources x
///   6 variants: see the README).
/// - Blobs are deduplicated by hash and hard-linked from the parts where the file system allows
///   (copied otherwise), so a merge costs file-system operations, not bytes.
/// - Parts must belong together: the same format version, tool version and manifest fingerprint;
///   a source or key present in two parts must be identical in both; when the parts are shards,
///   each shard of `N` must be there exactly once. Any violation is an error naming both parts.
/// - Publishing is atomic, as for `warm`: the output keeps its previous bundle until the new index
///   replaces the old in one rename.
public struct BundleMerger: Sendable {
    public let parts: [URL]
    public let output: URL
    /// Merge the shards given even if some of `1...N` are missing.
    public var allowMissingShards: Bool
    /// Asked between steps (a part, a batch of blobs): `true` stops the merge before it
    /// publishes, removing what it wrote (the CLI's Ctrl-C).
    public var isCancelled: @Sendable () -> Bool = { false }
    /// Runs with the merged index just before it is published (``WarmOptions/beforePublishing``).
    public var beforePublishing: (@Sendable (URL) throws -> Void)?

    public init(parts: [URL], output: URL, allowMissingShards: Bool = false) {
        self.parts = parts.map(\.standardizedFileURL)
        self.output = output.standardizedFileURL
        self.allowMissingShards = allowMissingShards
    }

    /// What a merge wrote.
    public struct Summary: Sendable, Hashable {
        public var parts: Int
        public var sources: Int
        public var variants: Int
        /// Distinct blobs the merged index references.
        public var blobs: Int
        /// Blobs added to the output (linked or copied); the others were there already.
        public var blobsAdded: Int
        /// Blobs of the output's previous bundle that nothing references any more, now deleted.
        public var blobsRemoved: Int
    }

    @discardableResult
    public func merge() throws(BundleMergeError) -> Summary {
        guard !parts.isEmpty else {
            throw BundleMergeError(.unreadablePart, "nothing to merge: give the partial bundles to combine")
        }
        var seen: Set<String> = []
        for part in parts {
            guard part != output else {
                throw BundleMergeError(.unreadablePart, "the output \(output.path) is also a part; "
                    + "merge into a new path")
            }
            guard seen.insert(part.path).inserted else {
                throw BundleMergeError(.unreadablePart, "\(part.path) is given twice")
            }
        }
        var loaded: [BundlePart] = []
        for url in parts {
            loaded.append(try BundlePart(url: url))
        }
        try checkCompatible(loaded)

        let lock: OutputLock
        do {
            lock = try OutputLock(bundleURL: output)
        } catch {
            throw BundleMergeError(error.kind == .locked ? .locked : .fileSystem, error.message)
        }
        defer { withExtendedLifetime(lock) {} }
        let writer = BundleWriter(bundleURL: output, generator: loaded[0].generator)
        // A signal that arrives while the merged index is built still cancels: the last check
        // runs just before the index is published.
        let cancelled = isCancelled, output = output, signing = beforePublishing
        writer.setBeforePublishing { @Sendable index in
            if cancelled() { throw Self.interrupted(output) }
            try signing?(index)
        }
        do {
            try writer.prepare()
        } catch {
            throw BundleMergeError(.fileSystem, "\(PlainReason.of(error))")
        }
        do {
            var added = 0
            for (index, part) in loaded.enumerated() {
                added += try stage(part, earlier: loaded[..<index], into: writer)
            }
            try stopIfCancelled()
            let summary = try writer.commit(manifestFingerprint: loaded[0].fingerprint)
            return Summary(parts: parts.count, sources: summary.sourceCount, variants: summary.variantCount,
                           blobs: summary.blobCount, blobsAdded: added, blobsRemoved: summary.blobsRemoved)
        } catch let error as BundleMergeError {
            writer.abandon()
            throw error
        } catch {
            if writer.hasRunOutOfSpace || DiskSpace.isExhausted(by: error) {
                // Roughly: the parts' indexes (the merged one is about their size) and what was copied.
                let indexes = loaded.reduce(0) { total, part in
                    total + (ObjectStore.fileSize(part.url.appendingPathComponent(BundleFormat.indexFileName)) ?? 0)
                }
                let needed = 2 * indexes + writer.bytesWritten
                let outOfInodes = DiskSpace.isOutOfInodes(at: output.path)
                writer.abandon()
                throw BundleMergeError(.fileSystem, "out of disk space: "
                    + DiskSpace.shortage(at: output.path, needed: Int64(needed), outOfInodes: outOfInodes)
                    + "; free some space there or merge into another disk (-o), then run again; "
                    + "\(output.path) is unchanged and this merge's files were removed")
            }
            writer.abandon()
            throw BundleMergeError(.fileSystem, "\(PlainReason.of(error))")
        }
    }

    /// Stages one part's index rows in the writer's staging index (set-wise, inside SQLite) and
    /// adds its blobs; returns how many blobs were added. Rows another part staged before must be
    /// identical (presets aside): else the error names both parts.
    private func stage(_ part: BundlePart, earlier: ArraySlice<BundlePart>, into writer: BundleWriter) throws -> Int {
        try stopIfCancelled()
        let conflict: IndexMerge.Conflict?
        do {
            conflict = try writer.mergeIndex(of: part.url)
        } catch let error as BundleWriterError where error.kind == .inconsistentContents {
            throw BundleMergeError(.unreadablePart, "cannot merge \(part.name): its index cannot be merged: "
                + "\(error.detail) (run warm-cache verify on it)")
        }
        switch conflict {
        case nil:
            break
        case .source(let identifier, let staged, let incoming):
            let other = try earlier.first { try $0.has(SourceIdentifier(verbatim: identifier)) }
            throw incompatible("source \(identifier) differs between "
                + "\(other?.name ?? "an earlier part") (original \(staged.prefix(12))…) "
                + "and \(part.name) (original \(incoming.prefix(12))…): the parts come "
                + "from different runs; warm them again from the same originals")
        case .variant(let key, let staged, let incoming):
            let other = try earlier.first { try $0.has(cacheKey: key) }
            throw incompatible("\(key) is in \(other?.name ?? "an earlier part") as blob "
                + "\(staged.prefix(12))… and in \(part.name) as blob \(incoming.prefix(12))…: two different "
                + "images for one key. Warm the parts with the same warm-cache and libvips, from the same originals")
        }
        var added = 0
        var batch: [(sha256: String, format: ImageFormat, byteCount: Int)] = []
        batch.reserveCapacity(Self.linkBatch)
        try part.forEachBlob { sha256, format, byteCount in
            batch.append((sha256, format, byteCount))
            if batch.count == Self.linkBatch {
                try stopIfCancelled()
                added += try writer.adoptBlobs(batch, fromBundleAt: part.url.path)
                batch.removeAll(keepingCapacity: true)
            }
        }
        return added + (try writer.adoptBlobs(batch, fromBundleAt: part.url.path))
    }

    /// Blobs linked at once (in parallel): large enough to keep every core busy, small enough
    /// that memory does not grow with the part.
    private static let linkBatch = 4096

    private func stopIfCancelled() throws(BundleMergeError) {
        guard isCancelled() else { return }
        throw Self.interrupted(output)
    }

    private static func interrupted(_ output: URL) -> BundleMergeError {
        BundleMergeError(.interrupted, "interrupted: nothing was written; \(output.path) is unchanged")
    }

    // MARK: Checks

    private func checkCompatible(_ parts: [BundlePart]) throws(BundleMergeError) {
        let first = parts[0]
        for part in parts.dropFirst() {
            if part.formatVersion != first.formatVersion {
                throw incompatible("\(first.name) is bundle format \(first.formatVersion) but \(part.name) is "
                    + "\(part.formatVersion): warm every part with the same warm-cache version")
            }
            if part.generator != first.generator {
                throw incompatible("\(first.name) was written by \(first.generator) but \(part.name) by "
                    + "\(part.generator): warm every part with the same warm-cache version")
            }
        }
        for part in parts where part.fingerprint == nil {
            throw incompatible("\(part.name) records no manifest fingerprint (it was written before "
                + "sharding existed): warm it again")
        }
        for part in parts.dropFirst() where part.fingerprint != first.fingerprint {
            throw incompatible("\(first.name) and \(part.name) were warmed from different manifests "
                + "(fingerprints \(first.fingerprint!.prefix(12))… and \(part.fingerprint!.prefix(12))…): "
                + "warm every shard from the same manifest, then merge")
        }
        try checkShards(parts)
    }

    private func checkShards(_ parts: [BundlePart]) throws(BundleMergeError) {
        let sharded = parts.filter { $0.shard != nil }
        guard let first = sharded.first, let count = first.shard?.count else { return }
        var byIndex: [Int: BundlePart] = [:]
        for part in sharded {
            let shard = part.shard!
            guard shard.count == count else {
                throw incompatible("\(first.name) is shard \(first.shard!) but \(part.name) is shard \(shard): "
                    + "merge the parts of one matrix (the same N)")
            }
            if let other = byIndex[shard.index] {
                throw incompatible("\(other.name) and \(part.name) are both shard \(shard): give each shard once")
            }
            byIndex[shard.index] = part
        }
        let missing = (1...count).filter { byIndex[$0] == nil }
        if !missing.isEmpty, !allowMissingShards {
            let list = missing.map { "\($0)/\(count)" }.joined(separator: ", ")
            throw incompatible("shard\(missing.count == 1 ? "" : "s") \(list) missing: the merged bundle would "
                + "lack \(missing.count == 1 ? "its" : "their") sources. Give every shard's part, or pass "
                + "--allow-missing-shards to merge the others")
        }
    }

    private func incompatible(_ message: String) -> BundleMergeError {
        BundleMergeError(.incompatibleParts, "cannot merge: " + message)
    }
}
