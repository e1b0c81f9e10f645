import Foundation
import WarmCache

/// Writes a bundle so that a crash or error at any point leaves the previous bundle intact.
///
/// The protocol (documented in `docs/bundle-format.md`, "Publishing"):
/// 1. ``prepare()`` checks the output is a bundle (or absent), creates it, and removes leftovers
///    of interrupted runs (`.tmp/`, stray `index-*.sqlite.tmp` files).
/// 2. ``storeBlob(_:format:)`` adds encoded images to `objects/`: each is written to `.tmp/`,
///    flushed, and renamed into place. Content addressing makes this safe while the old index is
///    live: a new blob is invisible to old readers, and an existing blob is never rewritten.
/// 3. ``commit(_:)`` builds the new index in a temporary file in one transaction, checks that
///    every blob it references exists, flushes it and renames it over `index.sqlite`: the one
///    atomic step that switches readers from the old bundle to the new one.
/// 4. After the switch, blobs no index references are deleted.
///
/// A run that fails before step 3 leaves the old index and old blobs untouched; only unreferenced
/// new blobs remain, and the next commit deletes them.
public final class BundleWriter: Sendable {
    public let bundleURL: URL
    public let generator: String

    private var objectsURL: URL { bundleURL.appendingPathComponent(BundleFormat.objectsDirectoryName) }
    private var stagingURL: URL { bundleURL.appendingPathComponent(".tmp") }
    private var indexURL: URL { bundleURL.appendingPathComponent(BundleFormat.indexFileName) }

    public static let defaultGenerator = "warm-cache \(WarmCacheVersion.current)"

    /// Points in ``commit(_:)`` where tests make the writer fail, as a crash would.
    enum Stage: Sendable {
        case indexBuilt
    }
    private let injectFault: @Sendable (Stage) throws -> Void
    /// Blobs this writer added to `objects/` (absent before), so ``abandon()`` can take them back.
    private let added = Locked<[URL]>([])

    public convenience init(bundleURL: URL, generator: String = BundleWriter.defaultGenerator) {
        self.init(bundleURL: bundleURL, generator: generator, injectFault: { _ in })
    }

    init(bundleURL: URL, generator: String, injectFault: @escaping @Sendable (Stage) throws -> Void) {
        self.bundleURL = bundleURL.standardizedFileURL
        self.generator = generator
        self.injectFault = injectFault
    }

    /// Whether a published bundle (an `index.sqlite`) exists at the output.
    public var hasPublishedBundle: Bool {
        FileManager.default.fileExists(atPath: indexURL.path)
    }

    /// Makes the output ready for blobs. Refuses a path that holds something other than a bundle.
    public func prepare() throws {
        let fileManager = FileManager.default
        var isDirectory: ObjCBool = false
        if fileManager.fileExists(atPath: bundleURL.path, isDirectory: &isDirectory) {
            guard isDirectory.boolValue else {
                throw BundleWriterError(.outputIsNotABundle, bundleURL: bundleURL, detail: "it is a file")
            }
            let entries = try fileSystem("listing the output") { try fileManager.contentsOfDirectory(atPath: bundleURL.path) }
            let ours: Set<String> = [BundleFormat.indexFileName, BundleFormat.objectsDirectoryName, ".tmp"]
            let foreign = entries.filter { !ours.contains($0) && !BundleWriter.isIndexTemporary($0) }
            if !foreign.isEmpty && !entries.contains(BundleFormat.indexFileName) {
                throw BundleWriterError(.outputIsNotABundle, bundleURL: bundleURL,
                                        detail: "it holds \(foreign.sorted().prefix(3).joined(separator: ", "))")
            }
        }
        try fileSystem("creating the bundle directories") {
            try fileManager.createDirectory(at: objectsURL, withIntermediateDirectories: true)
            try? fileManager.removeItem(at: stagingURL)
            try fileManager.createDirectory(at: stagingURL, withIntermediateDirectories: true)
            for entry in try fileManager.contentsOfDirectory(atPath: bundleURL.path)
            where BundleWriter.isIndexTemporary(entry) {
                try? fileManager.removeItem(at: bundleURL.appendingPathComponent(entry))
            }
        }
    }

    /// The path of a blob inside this bundle.
    public func blobURL(sha256: String, format: ImageFormat) -> URL {
        bundleURL.appendingPathComponent(BundleFormat.objectPath(sha256: sha256, format: format))
    }

    /// Adds an encoded image to the object store unless an identical one is there. Thread-safe.
    @discardableResult
    public func storeBlob(_ data: Data, format: ImageFormat) throws -> StoredBlob {
        let sha256 = ContentHash.sha256(data)
        let destination = blobURL(sha256: sha256, format: format)
        let existing = BundleWriter.fileSize(destination)
        if let existing, existing == data.count {
            return StoredBlob(sha256: sha256, format: format, byteCount: data.count, written: false)
        }
        try fileSystem("storing blob \(destination.lastPathComponent)") {
            try FileManager.default.createDirectory(at: destination.deletingLastPathComponent(),
                                                    withIntermediateDirectories: true)
            let temporary = stagingURL.appendingPathComponent("\(sha256).\(UUID().uuidString)")
            try DurableFile.write(data, to: temporary)
            try DurableFile.replace(destination, with: temporary)
        }
        if existing == nil {
            added.withLock { $0.append(destination) }
        }
        return StoredBlob(sha256: sha256, format: format, byteCount: data.count, written: true)
    }

    /// Whether the store has this blob already (same hash, same size).
    public func hasBlob(sha256: String, format: ImageFormat, byteCount: Int) -> Bool {
        BundleWriter.fileSize(blobURL(sha256: sha256, format: format)) == byteCount
    }

    /// Publishes `contents` as the bundle's new index, atomically, then deletes unreferenced blobs.
    @discardableResult
    public func commit(_ contents: BundleContents) throws -> CommitSummary {
        try validate(contents)
        var referenced: [String: (ImageFormat, Int)] = [:]
        for variant in contents.variants {
            referenced[variant.blobSHA256] = (variant.key.spec.format, variant.byteCount)
        }
        for (sha256, (format, byteCount)) in referenced where !hasBlob(sha256: sha256, format: format, byteCount: byteCount) {
            throw BundleWriterError(.missingBlob, bundleURL: bundleURL,
                                    detail: "blob \(BundleFormat.objectPath(sha256: sha256, format: format)) "
                                        + "is missing or has the wrong size")
        }

        let temporary = bundleURL.appendingPathComponent("index-\(UUID().uuidString).sqlite.tmp")
        defer { try? FileManager.default.removeItem(at: temporary) }
        do {
            try IndexBuilder(generator: generator).write(contents, to: temporary.path)
            try injectFault(.indexBuilt)
        } catch {
            throw BundleWriterError(.index, bundleURL: bundleURL, detail: "\(error)")
        }
        try fileSystem("publishing the index") {
            try DurableFile.sync(temporary)
            try DurableFile.replace(indexURL, with: temporary)
        }

        let keep = Set(referenced.map { BundleFormat.objectPath(sha256: $0.key, format: $0.value.0) })
        let removed = collectGarbage(keeping: keep)
        try? FileManager.default.removeItem(at: stagingURL)
        return CommitSummary(sourceCount: contents.sources.count, variantCount: contents.variants.count,
                             blobCount: referenced.count, blobBytes: referenced.values.reduce(0) { $0 + $1.1 },
                             blobsRemoved: removed)
    }

    /// Gives up a run: removes staging files and the blobs this run added, so a published bundle is
    /// left exactly as it was, and removes the whole output if no bundle was ever published there.
    public func abandon() {
        let fileManager = FileManager.default
        try? fileManager.removeItem(at: stagingURL)
        if !hasPublishedBundle {
            try? fileManager.removeItem(at: bundleURL)
            return
        }
        for blob in added.withLock({ $0 }) {
            try? fileManager.removeItem(at: blob)
            let fanout = blob.deletingLastPathComponent()
            if (try? fileManager.contentsOfDirectory(atPath: fanout.path))?.isEmpty == true {
                try? fileManager.removeItem(at: fanout)
            }
        }
    }

    // MARK: Internals

    private func validate(_ contents: BundleContents) throws {
        var sources = Set<SourceIdentifier>()
        for source in contents.sources where !sources.insert(source.identifier).inserted {
            throw BundleWriterError(.inconsistentContents, bundleURL: bundleURL,
                                    detail: "source \(source.identifier) is listed twice")
        }
        var keys = Set<String>()
        for variant in contents.variants {
            guard keys.insert(variant.key.rawValue).inserted else {
                throw BundleWriterError(.inconsistentContents, bundleURL: bundleURL,
                                        detail: "variant \(variant.key) is listed twice")
            }
            guard sources.contains(variant.key.source) else {
                throw BundleWriterError(.inconsistentContents, bundleURL: bundleURL,
                                        detail: "variant \(variant.key) belongs to no listed source")
            }
        }
    }

    /// Deletes blob files under `objects/` that `keep` does not list; returns how many.
    private func collectGarbage(keeping keep: Set<String>) -> Int {
        ObjectStore.removeUnreferenced(in: bundleURL, keeping: keep)
    }

    private func fileSystem<T>(_ action: String, _ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as BundleWriterError {
            throw error
        } catch {
            throw BundleWriterError(.fileSystem, bundleURL: bundleURL, detail: "\(action): \(error.localizedDescription)")
        }
    }

    private static func isIndexTemporary(_ name: String) -> Bool {
        name.hasPrefix("index-") && name.hasSuffix(".sqlite.tmp")
    }

    private static func fileSize(_ url: URL) -> Int? {
        ObjectStore.fileSize(url)
    }
}
