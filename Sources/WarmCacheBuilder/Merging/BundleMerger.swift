import Foundation
import WarmCache

/// Combines partial bundles (the shards of one manifest, warmed with `--shard I/N`) into one
/// bundle: `warm-cache merge -o Images.warmcache PART...`.
///
/// - Index rows are unioned and written by the same ``BundleWriter`` and index builder as `warm`,
///   so the shards of a manifest merge into exactly the bundle one unsharded run writes. Rows are
///   streamed part by part into the writer's on-disk staging index, never collected: memory stays
///   flat however many sources the parts hold (100,000 sources x 6 variants: see the README).
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
        do {
            try writer.prepare()
        } catch {
            throw BundleMergeError(.fileSystem, "\(error)")
        }
        do {
            var added = 0
            for (index, part) in loaded.enumerated() {
                added += try stage(part, earlier: loaded[..<index], into: writer)
            }
            let summary = try writer.commit(manifestFingerprint: loaded[0].fingerprint)
            return Summary(parts: parts.count, sources: summary.sourceCount, variants: summary.variantCount,
                           blobs: summary.blobCount, blobsAdded: added, blobsRemoved: summary.blobsRemoved)
        } catch let error as BundleMergeError {
            writer.abandon()
            throw error
        } catch {
            writer.abandon()
            throw BundleMergeError(.fileSystem, "\(error)")
        }
    }

    /// Streams one part's rows into the writer's staging index (sources first, then variants) and
    /// adds the blobs of its new variants; returns how many blobs were added. Rows another part
    /// staged before must be identical (presets aside): else the error names both parts.
    private func stage(_ part: BundlePart, earlier: ArraySlice<BundlePart>, into writer: BundleWriter) throws -> Int {
        try part.forEachSource { source in
            guard let staged = try writer.merge(source) else { return }
            let other = try earlier.first { try $0.source(source.identifier) != nil }
            throw incompatible("source \(source.identifier) differs between "
                + "\(other?.name ?? "an earlier part") (original \(staged.contentSHA256.prefix(12))…) "
                + "and \(part.name) (original \(source.contentSHA256.prefix(12))…): the parts come "
                + "from different runs; warm them again from the same originals")
        }
        var added = 0
        try part.forEachVariant { variant in
            switch try writer.merge(variant) {
            case .added:
                if try writer.adoptBlob(at: part.blobURL(of: variant), sha256: variant.blobSHA256,
                                        format: variant.key.spec.format, byteCount: variant.byteCount).written {
                    added += 1
                }
            case .present:
                break
            case .differs(let staged):
                let other = try earlier.first { try $0.variant(variant.key) != nil }
                throw incompatible("\(variant.key.rawValue) is in \(other?.name ?? "an earlier part") as blob "
                    + "\(staged.blobSHA256.prefix(12))… and in \(part.name) as blob "
                    + "\(variant.blobSHA256.prefix(12))…: two different images for one key. "
                    + "Warm the parts with the same warm-cache and libvips, from the same originals")
            }
        }
        return added
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
