import Foundation

/// A baked WarmCache bundle, opened read-only: ask it for the best image for a URL at a size.
///
/// ```swift
/// let bundle = try CacheBundle(contentsOf: Bundle.main.url(forResource: "Images", withExtension: "warmcache")!)
/// // In a format this device decodes (``ImageFormat/decodedHere``) unless `accepting:` says otherwise:
/// if let hit = try bundle.bestImage(for: url, size: PointSize(width: 100, height: 100), scale: 3) {
///     imageView.image = UIImage(contentsOfFile: hit.fileURL.path)
/// }
/// ```
///
/// A `CacheBundle` is `Sendable`: share one instance and call it from any thread. Lookups run
/// on a small pool of read-only SQLite connections and take microseconds. Opening reads only
/// the `meta` table. Nothing is ever written: the index is opened `immutable`, so the bundle
/// can live in an app's read-only resources.
public final class CacheBundle: ImageLookup {
    /// Tuning for a bundle reader.
    public struct Configuration: Sendable {
        /// Most blobs kept in the memory cache.
        public var memoryCacheCountLimit: Int
        /// Most bytes kept in the memory cache.
        public var memoryCacheByteLimit: Int
        /// Most SQLite connections open at once (concurrent lookups beyond this wait).
        public var maximumConnections: Int
        /// Whether best-fit and exact lookups answer from a compact in-memory copy of the index's
        /// variant rows (keys, sizes, formats, hashes): about 100 bytes per variant, 10 MB for
        /// 100,000. It is built on a background thread at the first best-fit lookup, which, like
        /// those until it is ready, answers from SQLite. Off: every lookup reads SQLite (slower,
        /// no memory beyond SQLite's page cache).
        public var memoryIndex: Bool

        /// A configuration; the defaults suit an app showing a screenful of images at a time.
        ///
        /// - Parameters:
        ///   - memoryCacheCountLimit: Most blobs kept in memory (100 by default).
        ///   - memoryCacheByteLimit: Most bytes kept in memory (32 MiB by default); a blob larger than
        ///     this is never kept.
        ///   - maximumConnections: Most SQLite connections open at once (4 by default).
        ///   - memoryIndex: Whether lookups answer from an in-memory copy of the variant rows once it is
        ///     built (on by default; see ``memoryIndex``).
        public init(memoryCacheCountLimit: Int = 100, memoryCacheByteLimit: Int = 32 << 20,
                    maximumConnections: Int = 4, memoryIndex: Bool = true) {
            self.memoryCacheCountLimit = memoryCacheCountLimit
            self.memoryCacheByteLimit = memoryCacheByteLimit
            self.maximumConnections = maximumConnections
            self.memoryIndex = memoryIndex
        }
    }

    /// The bundle directory.
    public let url: URL
    /// What the bundle says about itself: its format version, the tool that wrote it and its counts.
    public let info: BundleInfo
    /// Recently read blobs. Shared by every ``CachedImage`` this bundle returns.
    public let memoryCache: BlobMemoryCache
    private let pool: ConnectionPool
    /// `url.path`, for building blob paths without `URL` arithmetic on every lookup.
    private let bundlePath: String
    /// `objects/`, held open: checking a blob resolves two path components, not the whole path.
    private let objectsDirectory: Int32
    /// The in-memory copy of the variant rows, once built (``Configuration/memoryIndex``).
    private let memoryIndex: MemoryIndexSlot

    /// Opens the bundle at `url` (a `<Name>.warmcache` directory) and checks its format version.
    ///
    /// Open a bundle once and share the instance. Opening reads the `meta` table and prepares the
    /// lookups' queries, nothing more; the index is read as lookups need it.
    ///
    /// - Parameters:
    ///   - url: The bundle directory, e.g. `Bundle.main.url(forResource: "Images", withExtension: "warmcache")`.
    ///   - configuration: Memory limits and connections; the defaults suit most apps.
    /// - Throws: ``CacheBundleError``: `bundleNotFound` (nothing at `url`), `notABundle` (no index,
    ///   or an SQLite file of another application), `corruptIndex` (SQLite cannot read it, or a
    ///   table the format needs is missing), `unsupportedVersion` (written by a newer WarmCache).
    public init(contentsOf url: URL, configuration: Configuration = Configuration()) throws {
        self.url = url
        bundlePath = url.standardizedFileURL.path
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory) else {
            throw CacheBundleError(.bundleNotFound, bundleURL: url)
        }
        let indexURL = url.appendingPathComponent(BundleFormat.indexFileName)
        guard isDirectory.boolValue, FileManager.default.fileExists(atPath: indexURL.path) else {
            throw CacheBundleError(.notABundle, bundleURL: url, detail: "it has no \(BundleFormat.indexFileName)")
        }
        let connection: SQLiteConnection
        do {
            connection = try SQLiteConnection(path: indexURL.path, readOnly: true)
            info = try CacheBundle.readInfo(connection, bundleURL: url)
            // Preparing the lookups checks the tables and columns they read, once, at open.
            for (slot, sql) in [Self.variantsOfSource, Self.variantsOfSourceInPreset, Self.variantByKey].enumerated() {
                _ = try connection.statement(slot: slot, sql)
            }
        } catch let error as SQLiteError {
            throw CacheBundleError(.corruptIndex, bundleURL: url, detail: error.description)
        }
        memoryCache = BlobMemoryCache(countLimit: configuration.memoryCacheCountLimit,
                                      byteLimit: configuration.memoryCacheByteLimit)
        pool = ConnectionPool(path: indexURL.path, limit: configuration.maximumConnections, first: connection)
        memoryIndex = MemoryIndexSlot(indexPath: indexURL.path, enabled: configuration.memoryIndex)
        objectsDirectory = open(bundlePath + "/" + BundleFormat.objectsDirectoryName, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
    }

    deinit {
        if objectsDirectory >= 0 { close(objectsDirectory) }
    }

    // MARK: Lookup

    /// The best image for a source identifier; see ``ImageLookup`` for the URL and string forms,
    /// the rules and the parameters.
    public func bestImage(for source: SourceIdentifier, size: PointSize, scale: Double,
                          accepting: [ImageFormat], fit: FitMode.Kind? = nil,
                          processors: ProcessorFilter? = nil, preset: String? = nil) throws -> CachedImage? {
        let selector = VariantSelector(size: size, scale: scale, accepting: accepting, fit: fit,
                                       processors: processors ?? (preset == nil ? .unprocessed : .any))
        if let index = memoryIndex.index(), preset.map({ index.presetBit($0) != nil }) ?? true {
            let presetMask = preset.flatMap(index.presetBit)  // nil: any variant; 0: none
            guard let variants = index.variants(ofEscaped: VariantKey.escape(source.rawValue)) else { return nil }
            var excluded: Set<Int> = []
            while let chosen = variants.best(selector, presetMask: presetMask, excluding: excluded) {
                if let image = presentImage(variants.record(chosen)) { return image }
                excluded.insert(chosen)  // its blob is not there: the next best, if any
            }
            return nil
        }
        var excluded: Set<String> = []
        while let chosen = try bestRecord(for: source, preset: preset, selector: selector, excluding: excluded) {
            if let image = presentImage(chosen) { return image }
            excluded.insert(chosen.cacheKey)  // its blob is not there: the next best, if any
        }
        return nil
    }

    /// The variant with exactly this key, or `nil` if the index has no such key.
    /// - Throws: ``CacheBundleError``: `corruptIndex` naming the bad column if the row breaks the
    ///   format's rules, `blobMissing` if its blob is not on disk with its size.
    public func image(for key: VariantKey) throws -> CachedImage? {
        try image(forCacheKey: key.rawValue)
    }

    /// The variant with exactly this canonical key text, or `nil`; throws as ``image(for:)``.
    ///
    /// Use it to find the file again from a key you kept or handed to another cache:
    ///
    /// ```swift
    /// SDImageCache.shared.additionalCachePathBlock = { key in try? bundle.image(forCacheKey: key)?.path }
    /// ```
    public func image(forCacheKey cacheKey: String) throws -> CachedImage? {
        if let index = memoryIndex.index(), let image = index.image(forCacheKey: cacheKey, present: presentImage) {
            return image  // a key not in memory may still be a row the index holds: SQLite says why
        }
        let decoded = try query { connection -> Result<(record: VariantRecord, sourceID: Int), IndexProblem>? in
            let statement = try connection.statement(slot: 2, Self.variantByKey)
            try statement.bind(.text(cacheKey))
            guard try statement.step() else { return nil }
            return IndexValidation.decodeVariant(statement, statement.columns(VariantColumns.self))
        }
        switch decoded {
        case nil:
            return nil
        case .failure(let problem):
            throw CacheBundleError(.corruptIndex, bundleURL: url, detail: problem.description)
        case .success(let row):
            guard let image = presentImage(row.record) else {
                throw CacheBundleError(.blobMissing(path: row.record.objectPath), bundleURL: url,
                                       detail: "run warm-cache warm on the manifest to write it again")
            }
            return image
        }
    }

    /// Every variant of a source whose row is valid and whose blob is on disk, ordered by cache key.
    public func images(for source: SourceIdentifier) throws -> [CachedImage] {
        try records(for: source, preset: nil)
            .sorted { $0.cacheKey.utf8.lexicographicallyPrecedes($1.cacheKey.utf8) }
            .compactMap(presentImage)
    }

    /// Every problem of the index, read as untrusted input: rows lookups skip (wrong types, NULLs,
    /// bad hashes, absurd sizes, unknown formats, keys that do not belong to their source) and
    /// missing tables or columns. Reads the whole index; empty for a bundle `warm-cache` wrote.
    public func indexProblems() throws -> [IndexProblem] {
        try query { try IndexValidation.problems(in: $0) }
    }

    /// The placeholder stored for a source identifier, or `nil`.
    public func placeholder(for source: SourceIdentifier) throws -> ImagePlaceholder? {
        try query { connection in
            typealias PH = IndexSchema.Placeholders
            let statement = try connection.statement("""
                SELECT p.\(PH.thumbhash), p.\(PH.blurhash), p.\(PH.averageColor) FROM \(PH.table) p
                JOIN \(S.table) s ON s.\(S.id) = p.\(PH.sourceID) WHERE s.\(S.source) = ?
                """)
            try statement.bind(.text(source.rawValue))
            guard try statement.step() else { return nil }
            let placeholder = ImagePlaceholder(
                thumbHash: statement.storage(PH.thumbhash) == .blob ? statement.blob(PH.thumbhash) : nil,
                blurHash: statement.textBytes(PH.blurhash).map { String(decoding: $0, as: UTF8.self) },
                averageColor: statement.textBytes(PH.averageColor)
                    .flatMap { RGBAColor(hex: String(decoding: $0, as: UTF8.self)) })
            return placeholder.isEmpty ? nil : placeholder
        }
    }

    /// Whether the bundle lists this source at all.
    public func contains(_ source: SourceIdentifier) throws -> Bool {
        try query { connection in
            let statement = try connection.statement("SELECT 1 FROM \(S.table) WHERE \(S.source) = ?")
            try statement.bind(.text(source.rawValue))
            return try statement.step()
        }
    }

    /// The presets the bundle's variants were baked for, sorted (for messages that name them).
    package func presetNames() throws -> [String] {
        try query { connection in
            let statement = try connection.statement("SELECT DISTINCT \(P.preset) FROM \(P.table) ORDER BY \(P.preset)")
            var names: [String] = []
            while try statement.step() {
                if let bytes = statement.textBytes(P.preset) { names.append(String(decoding: bytes, as: UTF8.self)) }
            }
            return names
        }
    }

    /// Builds the in-memory index now if it is on and not built yet, and waits for it: its variant
    /// count and the bytes it holds, or `nil` if it is off or the index could not be read. For
    /// benchmarks and tests; lookups start the build by themselves.
    package func prepareMemoryIndex() -> (variantCount: Int, byteCount: Int)? {
        memoryIndex.waitForIndex().map { ($0.variantCount, $0.byteCount) }
    }

    // MARK: Internals

    private typealias V = IndexSchema.Variants
    private typealias S = IndexSchema.Sources
    private typealias P = IndexSchema.VariantPresets

    /// A source's variants: the key range of its escaped identifier (one scan of the primary key),
    /// kept only if `source_id` agrees. Rows that break the format's rules are skipped. (The `+`
    /// keeps SQLite from walking `variants_by_source` instead, which costs one primary-key search
    /// per row.)
    static let variantsOfSource = """
        SELECT \(IndexValidation.variantColumns) FROM \(V.table) v
        WHERE v.\(V.cacheKey) >= ?1 AND v.\(V.cacheKey) < ?2
            AND +v.\(V.sourceID) = (SELECT \(S.id) FROM \(S.table) WHERE \(S.source) = ?3)
        """
    static let variantsOfSourceInPreset = variantsOfSource + """

        AND EXISTS (SELECT 1 FROM \(P.table) p WHERE p.\(P.preset) = ?4 AND p.\(P.cacheKey) = v.\(V.cacheKey))
        """
    static let variantByKey = "SELECT \(IndexValidation.variantColumns) FROM \(V.table) v WHERE v.\(V.cacheKey) = ?"

    /// Runs the query for a source's variants (in a preset, if given) and hands each row to `body`.
    private func withVariantRows<T>(of source: SourceIdentifier, preset: String?,
                                    _ body: (SQLiteStatement) throws -> T) throws -> T {
        let escaped = VariantKey.escape(source.rawValue)
        return try query { connection in
            let statement: SQLiteStatement
            if let preset {
                statement = try connection.statement(slot: 1, Self.variantsOfSourceInPreset)
                try statement.bind(.text(escaped + "|"), .text(escaped + "}"), .text(source.rawValue), .text(preset))
            } else {
                statement = try connection.statement(slot: 0, Self.variantsOfSource)
                try statement.bind(.text(escaped + "|"), .text(escaped + "}"), .text(source.rawValue))
            }
            return try body(statement)
        }
    }

    private func records(for source: SourceIdentifier, preset: String?) throws -> [VariantRecord] {
        try withVariantRows(of: source, preset: preset) { statement in
            let columns = statement.columns(VariantColumns.self)
            var records: [VariantRecord] = []
            while try statement.step() {
                if case .success(let row) = IndexValidation.decodeVariant(statement, columns) { records.append(row.record) }
            }
            return records
        }
    }

    /// The selector's choice among a source's valid rows, streaming: only a row that beats the best
    /// so far is copied out of SQLite. Rows whose key is in `excluded` do not exist.
    private func bestRecord(for source: SourceIdentifier, preset: String?, selector: VariantSelector,
                            excluding excluded: Set<String>) throws -> VariantRecord? {
        try withVariantRows(of: source, preset: preset) { statement in
            let columns = statement.columns(VariantColumns.self)
            var best: (record: VariantRecord, covers: Bool)?
            while try statement.step() {
                guard case .success(let fields) = IndexValidation.decodeFields(statement, columns),
                      selector.isCandidate(fields) else { continue }
                let covering = selector.covers(fields)
                if let current = best, !selector.beats(
                    fields, covering: covering, current.record, currentCovering: current.covers,
                    candidateKeyIsLower: {
                        statement.textBytes(columns.cacheKey)
                            .map { $0.lexicographicallyPrecedes(current.record.cacheKey.utf8) } ?? false
                    }) {
                    continue
                }
                let record = IndexValidation.record(statement, columns, fields)
                if !excluded.isEmpty, excluded.contains(record.cacheKey) { continue }
                best = (record, covering)
            }
            return best?.record
        }
    }

    /// The answer for a record, if its blob is on disk as a regular file of the recorded size.
    private func presentImage(_ record: VariantRecord) -> CachedImage? {
        // <bundle>/objects/<2>/<hash>.<ext>, from a checked hash; stat'ed below objects/.
        let path = bundlePath + "/" + record.objectPath
        let inObjects = bundlePath.utf8.count + BundleFormat.objectsDirectoryName.utf8.count + 2
        var status = stat()
        guard objectsDirectory >= 0,
              path.withCString({ fstatat(objectsDirectory, $0 + inObjects, &status, AT_SYMLINK_NOFOLLOW) }) == 0,
              status.st_mode & S_IFMT == S_IFREG, Int64(status.st_size) == Int64(record.byteCount)
        else { return nil }
        return CachedImage(record: record, path: path, bundleURL: url, memoryCache: memoryCache)
    }

    /// Runs a read on a pooled connection, turning SQLite failures into `corruptIndex`.
    package func query<T>(_ body: (SQLiteConnection) throws -> T) throws -> T {
        do {
            return try pool.withConnection(body)
        } catch let error as SQLiteError {
            throw CacheBundleError(.corruptIndex, bundleURL: url, detail: error.description)
        }
    }

    private static func readInfo(_ connection: SQLiteConnection, bundleURL: URL) throws -> BundleInfo {
        let application = try connection.statement("PRAGMA application_id")
        guard try application.step(),
              Int32(truncatingIfNeeded: application.int("application_id")) == BundleFormat.applicationID else {
            throw CacheBundleError(.notABundle, bundleURL: bundleURL,
                                   detail: "\(BundleFormat.indexFileName) is an SQLite file of another application")
        }
        var meta: [String: String] = [:]
        typealias M = IndexSchema.Meta
        let statement = try connection.statement("SELECT \(M.key), \(M.value) FROM \(M.table)")
        while try statement.step() {
            meta[statement.text(M.key)] = statement.text(M.value)
        }
        connection.finalizeStatements()
        guard let major = meta[BundleFormat.MetaKey.formatMajor].flatMap(Int.init), major >= 1 else {
            throw CacheBundleError(.corruptIndex, bundleURL: bundleURL, detail: "meta has no valid format_major")
        }
        guard major <= BundleFormat.majorVersion else {
            throw CacheBundleError(.unsupportedVersion(found: major, supported: BundleFormat.majorVersion),
                                   bundleURL: bundleURL)
        }
        return BundleInfo(
            formatMajor: major,
            formatMinor: meta[BundleFormat.MetaKey.formatMinor].flatMap(Int.init) ?? 0,
            generator: meta[BundleFormat.MetaKey.generator] ?? "unknown",
            sourceCount: meta[BundleFormat.MetaKey.sourceCount].flatMap(Int.init) ?? 0,
            variantCount: meta[BundleFormat.MetaKey.variantCount].flatMap(Int.init) ?? 0)
    }
}
