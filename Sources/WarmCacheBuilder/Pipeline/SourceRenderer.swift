import Foundation
import WarmCache
import WarmCacheImaging

/// Turns one source's original into stored blobs and index rows, in three steps: look up an
/// earlier identical render (``RenderMemo``) whose blobs are all still stored; otherwise image it
/// (open the original, resolve its variant requests against it — format `auto` needs to know
/// about alpha —, decode once and encode every variant); store the blobs and remember the rows.
///
/// Synchronous: the pipeline calls it on Dispatch threads, looking up as many sources at once as
/// are in flight and rendering a few at a time (one per imaging slot).
struct SourceRenderer: Sendable {
    let engine: ImagingEngine
    /// Where sources are decoded and encoded, when not in this process (``WarmOptions/imagingProcessCommand``).
    let processes: ImagingProcessPool?
    let writer: BundleWriter
    let memo: RenderMemo

    /// One source's index rows, and whether this run encoded them or reused an earlier render.
    struct Rendered: Sendable {
        var source: BundleContents.Source
        /// In key order, with their presets.
        var variants: [BundleContents.Variant]
        var action: VariantReport.Action
    }

    struct Failure: Error, Sendable {
        var failure: SourceFailure
    }

    /// What the look-up step found: an earlier render to reuse, or what rendering needs.
    enum LookUp: Sendable {
        case reused(Rendered)
        case needsRender(Pending)
    }

    /// A source the memo could not serve: its original's hash, its memo key (the entry's key
    /// also names the variants, which depend on the alpha the render finds) and size and, when
    /// the look-up had to read the original to hash it, its bytes.
    struct Pending: Sendable {
        var original: URL
        var sha256: String
        var memoKey: String
        var bytes: Data?
        /// The original's size in bytes (0 if it cannot be read: rendering then fails and says why).
        /// The pipeline renders larger originals first.
        var byteCount: Int
    }

    /// Step 1, cheap (no decoding): an earlier identical render whose blobs are all still stored
    /// intact, or what ``image(_:pending:)`` needs. The pipeline runs it outside the imaging
    /// slots, so a re-warm's look-ups never wait behind encodes.
    func lookUp(_ planned: PlannedSource, original: URL, knownSHA256: String?) throws(Failure) -> LookUp {
        // An original from the originals cache comes with its hash: a reused render never reads it.
        var known: Data?
        let sha256: String
        if let knownSHA256 {
            sha256 = knownSHA256
        } else {
            let bytes = try Self.read(original)
            sha256 = ContentHash.sha256(bytes)
            known = bytes
        }
        let memoKey = memo.key(source: planned.identifier, originalSHA256: sha256, placeholders: planned.placeholders)
        if let reused = reusable(planned, memoKey: memoKey) {
            return .reused(reused)
        }
        return .needsRender(Pending(original: original, sha256: sha256, memoKey: memoKey, bytes: known,
                                    byteCount: known?.count ?? ObjectStore.fileSize(original) ?? 0))
    }

    /// The look-up for an original whose SHA-256 is known: an earlier identical render whose
    /// blobs are all still stored intact, or `nil`.
    func reusable(_ planned: PlannedSource, originalSHA256 sha256: String) -> Rendered? {
        reusable(planned, memoKey: memo.key(source: planned.identifier, originalSHA256: sha256,
                                             placeholders: planned.placeholders))
    }

    /// The entry for the variants the plan asks of this source, in the memo (``RenderMemo``):
    /// the variants resolved for an opaque original first, then, if alpha changes them (format
    /// `auto`, say), for one with alpha; last, the one entry an earlier version kept per source.
    private func reusable(_ planned: PlannedSource, memoKey: String) -> Rendered? {
        let opaque = ResolvedRequests(planned, sourceHasAlpha: false)
        if let found = reusable(planned, memoKey: memoKey, requests: opaque) { return found }
        let alpha = ResolvedRequests(planned, sourceHasAlpha: true)
        if alpha.groups != opaque.groups, let found = reusable(planned, memoKey: memoKey, requests: alpha) {
            return found
        }
        var requested: ResolvedRequests?
        guard let entry = memo.loadLegacy(memoKey, source: planned.identifier, keys: { sourceHasAlpha in
                  let requests = sourceHasAlpha ? alpha : opaque
                  requested = requests
                  return requests.groups
              }), let requested, let reused = reuse(entry, requests: requested) else { return nil }
        memo.moveLegacy(reused.restamped ?? entry, from: memoKey,
                        to: memo.entryKey(memoKey, groups: requested.groups))
        return reused.rendered
    }

    /// The entry saved for `requests` (the plan's variants resolved for one alpha), if its blobs
    /// are all still stored intact. (An entry found under their key has their variants whatever
    /// its original's alpha: when alpha changes the variants, it changes the key.)
    private func reusable(_ planned: PlannedSource, memoKey: String, requests: ResolvedRequests) -> Rendered? {
        let key = memo.entryKey(memoKey, groups: requests.groups)
        guard let entry = memo.load(key, source: planned.identifier, keys: { _ in requests.groups }),
              let reused = reuse(entry, requests: requests) else { return nil }
        if let restamped = reused.restamped {
            try? memo.save(restamped, as: key)  // next time these blobs are trusted without hashing
        }
        return reused.rendered
    }

    /// A source decoded and encoded, not stored yet: what step 2 hands to step 3.
    struct Imaged: Sendable {
        fileprivate var info: SourceImageInfo
        fileprivate var requests: ResolvedRequests
        fileprivate var rendered: RenderedSource
        fileprivate var originalByteCount: Int
    }

    /// Step 2, CPU-bound: decodes the original once and encodes every variant (in an imaging
    /// process when there are some). The pipeline runs it in an imaging slot. `onVariant` is
    /// called as each variant is encoded.
    func image(_ planned: PlannedSource, pending: Pending,
               onVariant: (@Sendable () -> Void)? = nil) throws(Failure) -> Imaged {
        let bytes: Data
        if let read = pending.bytes {
            bytes = read
        } else {
            bytes = try Self.read(pending.original)
        }
        do {
            if let processes {
                // The imaging process reads the header itself and picks the specs for the alpha it finds.
                let opaque = ResolvedRequests(planned, sourceHasAlpha: false)
                let alpha = ResolvedRequests(planned, sourceHasAlpha: true)
                let (info, rendered) = try processes.render(bytes, name: planned.identifier.rawValue,
                                                            specs: opaque.specs, alphaSpecs: alpha.specs,
                                                            placeholder: planned.placeholders,
                                                            memory: memoryNeeded(bytes, planned, opaque, alpha),
                                                            onVariant: onVariant)
                return Imaged(info: info, requests: info.hasAlpha ? alpha : opaque, rendered: rendered,
                              originalByteCount: bytes.count)
            }
            let opened = try engine.open(bytes, name: planned.identifier.rawValue)
            let requests = ResolvedRequests(planned, sourceHasAlpha: opened.info.hasAlpha)
            let rendered = try opened.render(candidates: requests.specs, placeholder: planned.placeholders,
                                             onVariant: onVariant)
            return Imaged(info: opened.info, requests: requests, rendered: rendered, originalByteCount: bytes.count)
        } catch {
            throw Failure(failure: SourceFailure(error))
        }
    }

    /// What rendering the source is estimated to need in an imaging process (its header read
    /// here, nothing decoded), which the pool waits for under the warm's memory limit. A header
    /// that cannot be read needs nothing: the process fails the source at once, saying why.
    private func memoryNeeded(_ bytes: Data, _ planned: PlannedSource, _ opaque: ResolvedRequests,
                              _ alpha: ResolvedRequests) -> Int {
        guard let opened = try? engine.open(bytes, name: planned.identifier.rawValue) else { return 0 }
        return opened.memoryNeeded(candidates: (opened.info.hasAlpha ? alpha : opaque).specs,
                                   placeholder: planned.placeholders)
    }

    /// Step 3: stores the blobs and remembers the rows for the next run. Outside the imaging
    /// slot, so the slot's process starts its next source meanwhile.
    func store(_ planned: PlannedSource, imaged: Imaged, pending: Pending) throws(Failure) -> Rendered {
        var variants: [BundleContents.Variant] = []
        var stamps: [FileStamp?] = []
        for encoded in imaged.rendered.variants {
            let key = VariantKey(source: planned.identifier, spec: encoded.spec)
            let stored: StoredBlob
            do {
                stored = try writer.storeBlob(encoded.data, format: encoded.spec.format)
            } catch {
                throw Failure(failure: SourceFailure(.fileSystem, "cannot store \(key.rawValue): \(PlainReason.of(error))"))
            }
            variants.append(BundleContents.Variant(
                key: key, pixelSize: PixelSize(width: encoded.pixelWidth, height: encoded.pixelHeight),
                byteCount: stored.byteCount, blobSHA256: stored.sha256, hasAlpha: encoded.hasAlpha,
                perceptual: encoded.perceptual))
            // The file now holds exactly these bytes (written, or found identical).
            stamps.append(writer.blobStamp(sha256: stored.sha256, format: encoded.spec.format))
        }
        let info = imaged.info
        let source = BundleContents.Source(
            identifier: planned.identifier, contentSHA256: pending.sha256,
            format: info.format?.rawValue ?? info.loader, pixelSize: info.pixelSize,
            byteCount: imaged.originalByteCount,
            placeholder: imaged.rendered.placeholder.isEmpty ? nil : imaged.rendered.placeholder)
        let entry = RenderMemo.Entry(source: source, sourceHasAlpha: info.hasAlpha, variants: variants, blobStamps: stamps)
        // A lost entry only costs a re-encode next time.
        try? memo.save(entry, as: memo.entryKey(pending.memoKey, groups: imaged.requests.groups))
        return Rendered(source: source, variants: imaged.requests.rows(variants), action: .encoded)
    }

    private static func read(_ original: URL) throws(Failure) -> Data {
        do {
            return try Data(contentsOf: original, options: .alwaysMapped)
        } catch {
            throw Failure(failure: SourceFailure(.fileSystem, "cannot read \(original.path): \(PlainReason.of(error))"))
        }
    }

    /// The memo's rows (already matched to the plan's keys) with the plan's presets, if every
    /// blob is still stored intact: a file unchanged since its bytes were last known to be right
    /// (its stamp in the entry) is trusted, any other is hashed. A damaged or missing blob makes
    /// the source render again, which writes it afresh. When a blob had to be hashed, the entry
    /// with its new stamps comes back too, to be saved.
    private func reuse(_ entry: RenderMemo.Entry, requests: ResolvedRequests)
        -> (rendered: Rendered, restamped: RenderMemo.Entry?)? {
        var restamped = entry
        restamped.blobStamps = entry.variants.indices.map { $0 < entry.blobStamps.count ? entry.blobStamps[$0] : nil }
        for (index, variant) in entry.variants.enumerated() {
            let known = restamped.blobStamps[index]
            let check = writer.checkBlob(sha256: variant.blobSHA256, format: variant.key.spec.format,
                                         byteCount: variant.byteCount, known: known)
            guard check.intact else { return nil }
            restamped.blobStamps[index] = check.stamp
        }
        let variants = requests.rows(entry.variants)
        let changed = restamped.blobStamps != entry.blobStamps
        return (Rendered(source: entry.source, variants: variants, action: .reused), changed ? restamped : nil)
    }
}

/// A source's variant requests resolved against the original, with requests that land on the
/// same keys merged (two presets asking for the same thing, or `auto` resolving to a format
/// listed explicitly too). Each request is a group of candidate keys: one, or for
/// `formats: [smallest]` one per candidate format (the render keeps one of them).
private struct ResolvedRequests {
    /// Per requested variant, its candidate keys; sorted by their first key.
    var groups: [[VariantKey]] = []
    /// In the order of `groups`: the candidate specs.
    var specs: [[VariantSpec]] = []
    /// In the order of `groups`: the presets that ask for each.
    private var presetLists: [[String]] = []
    /// Whether some group has several candidates: a winner may then land on another group's key.
    private(set) var hasChoices = false

    /// A source asks for a handful of variants: they are merged by looking through an array,
    /// not by hashing keys (a re-warm resolves every source's requests, and hashing keys that
    /// start with a URL cost more than the rest of it).
    init(_ planned: PlannedSource, sourceHasAlpha: Bool) {
        var resolved: [(keys: [VariantKey], specs: [VariantSpec], presets: [String])] = []
        resolved.reserveCapacity(planned.variants.count)
        for variant in planned.variants {
            let specs = variant.request.candidates(sourceHasAlpha: sourceHasAlpha)
            let keys = specs.map { VariantKey(source: planned.identifier, spec: $0) }
            if keys.count > 1 { hasChoices = true }
            if let index = resolved.firstIndex(where: { $0.keys == keys }) {
                if !resolved[index].presets.contains(variant.preset) { resolved[index].presets.append(variant.preset) }
            } else {
                resolved.append((keys, specs, [variant.preset]))
            }
        }
        resolved.sort { $0.keys[0] < $1.keys[0] }
        groups = resolved.map(\.keys)
        specs = resolved.map(\.specs)
        presetLists = resolved.map(\.presets)
    }

    /// `variants`, one per group in group order, with each group's presets; when a choice landed on
    /// a key another group has too, the two are one row with both groups' presets. In key order.
    func rows(_ variants: [BundleContents.Variant]) -> [BundleContents.Variant] {
        var rows = variants
        for index in rows.indices where index < presetLists.count {
            rows[index].presets = presetLists[index]
        }
        guard hasChoices else { return rows }
        var merged: [BundleContents.Variant] = []
        for row in rows {
            if let index = merged.firstIndex(where: { $0.key == row.key }) {
                merged[index].presets += row.presets.filter { !merged[index].presets.contains($0) }
            } else {
                merged.append(row)
            }
        }
        return merged.sorted { $0.key < $1.key }
    }
}
