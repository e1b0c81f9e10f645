import Foundation
import WarmCache

/// Keeps a local bundle directory in step with a bundle published as static files, downloading
/// only what changed, and installing only what the publisher signed.
///
/// ```swift
/// let updater = try BundleUpdater(from: URL(string: "https://cdn.example.com/Images.warmcache/")!,
///                                 into: appSupport.appendingPathComponent("Images.warmcache"),
///                                 configuration: .init(trustedKeys: [try BundlePublicKey(base64: "5Zq0…Hc=")],
///                                                      seedBundles: [shippedBundleURL]))
/// let result = try await updater.update()      // cancellable: cancel the surrounding Task
/// if result.outcome == .updated { reopenTheBundle() }
/// ```
///
/// One update:
/// 1. revalidates `<base>/statement.json`, the publisher's signed statement, with one conditional
///    GET; `304` (or a statement naming the installed index) ends it once its expiry is checked;
/// 2. otherwise checks the statement: signed by a trusted key, a version not below the one
///    installed or shipped in the app (a seed bundle's statement counts as shipped), another
///    index under the same version refused, not expired;
/// 3. downloads the index it names and checks it is exactly that file (SHA-256 and size), then
///    like any untrusted file (SQLite integrity, application id, format version, every blob name
///    and size);
/// 4. works out which blobs are not on disk yet (or in a seed bundle) and downloads only those, a
///    few at a time, checking each one's size and SHA-256, into the updater's own folder;
/// 5. moves them into `objects/`, switches `index.sqlite` to the new version with one atomic
///    rename, puts the statement beside it, then deletes the blobs that neither the new index nor
///    the one it replaced references.
///
/// Until step 5 the bundle's folder is the previous complete version, with nothing new in it. An
/// update that is refused or fails (error, cancellation, app killed) leaves it so; blobs verified
/// before a transient failure stay in the updater's folder, so the next update resumes where it
/// stopped. The directory is a plain bundle: open it with `CacheBundle(contentsOf:)`, or read it
/// over the shipped bundle with `LayeredCacheBundle`. Blobs of the replaced version are kept until
/// the following update, so a reader opened before the switch keeps working; open a new reader
/// after an update to see the new version.
///
/// Without trusted keys the updater refuses to run unless ``Configuration/allowsUnsignedUpdates``
/// is set; it then revalidates `index.sqlite` itself and installs whatever valid index it gets.
public final class BundleUpdater: Sendable {
    /// Trust, tuning and safety limits.
    public struct Configuration: Sendable {
        /// The public keys whose signed statements are accepted: any one of them may sign a
        /// release. Trust the next key too, before it is needed, to rotate without an app release.
        public var trustedKeys: [BundlePublicKey]
        /// Installs bundles published without a signed statement, from anyone who can write to the
        /// server or alter its answers. Used only when ``trustedKeys`` is empty; off by default.
        public var allowsUnsignedUpdates: Bool
        /// Most blob downloads in flight at once.
        public var maximumConcurrentDownloads: Int
        /// Seconds without any data from the server before a request fails (`timedOut`).
        public var timeout: TimeInterval
        /// The largest index accepted, in bytes.
        public var maximumIndexByteCount: Int
        /// Allows plain `http` to hosts other than loopback. Off by default: an index and blobs
        /// sent in clear can be read and altered on the way (the hashes catch altered blobs, not an
        /// altered index).
        public var allowsInsecureHTTP: Bool
        /// Bundles to copy blobs from instead of downloading them, e.g. the bundle shipped in the
        /// app's resources. Copies are verified like downloads. A seed's signed statement counts
        /// as installed: a lower version is refused as a rollback.
        public var seedBundles: [URL]
        /// Seconds an update may take in all. Past it the file in transfer fails (`tooSlow`), so a
        /// server that sends a byte now and then cannot hold an update open for ever; blobs
        /// verified until then stay, and the next update resumes. The statement (at most 64 KiB)
        /// must arrive within ``timeout``.
        public var maximumUpdateDuration: TimeInterval

        /// A configuration. Most apps set only `trustedKeys` and `seedBundles`.
        ///
        /// ```swift
        /// let configuration = BundleUpdater.Configuration(
        ///     trustedKeys: [try BundlePublicKey(base64: "q1W…="), try BundlePublicKey(base64: "Zx8…=")],
        ///     seedBundles: [Bundle.main.url(forResource: "Images", withExtension: "warmcache")!])
        /// ```
        ///
        /// - Parameters:
        ///   - trustedKeys: The public keys whose signed statements are accepted (none by default).
        ///   - allowsUnsignedUpdates: Whether to install unsigned bundles when no key is trusted (no by default).
        ///   - maximumConcurrentDownloads: Blob downloads in flight at once (6 by default).
        ///   - timeout: Seconds without data before a request fails (30 by default).
        ///   - maximumIndexByteCount: The largest index accepted, in bytes (64 MiB by default).
        ///   - allowsInsecureHTTP: Whether plain `http` to hosts other than loopback is allowed (no by default).
        ///   - seedBundles: Bundles to copy blobs from instead of downloading them (none by default).
        ///   - maximumUpdateDuration: Seconds one update may take in all (600 by default).
        public init(trustedKeys: [BundlePublicKey] = [], allowsUnsignedUpdates: Bool = false,
                    maximumConcurrentDownloads: Int = 6, timeout: TimeInterval = 30,
                    maximumIndexByteCount: Int = 64 << 20, allowsInsecureHTTP: Bool = false,
                    seedBundles: [URL] = [], maximumUpdateDuration: TimeInterval = 600) {
            self.trustedKeys = trustedKeys
            self.allowsUnsignedUpdates = allowsUnsignedUpdates
            self.maximumConcurrentDownloads = maximumConcurrentDownloads
            self.timeout = timeout
            self.maximumIndexByteCount = maximumIndexByteCount
            self.allowsInsecureHTTP = allowsInsecureHTTP
            self.seedBundles = seedBundles
            self.maximumUpdateDuration = maximumUpdateDuration
        }
    }

    /// The published bundle directory (`…/Images.warmcache/`).
    public let baseURL: URL
    /// The local bundle directory this updater maintains.
    public let directory: URL
    /// Trust, tuning and limits, as given to the initialiser.
    public let configuration: Configuration

    /// The updater's private files inside ``directory``.
    static let workDirectoryName = ".update"
    /// The clock statements' expiry is checked against (tests move it).
    let now: @Sendable () -> Date

    /// Creates an updater; nothing is downloaded until ``update(progress:)`` or ``start()``.
    ///
    /// - Parameters:
    ///   - baseURL: The published bundle directory, e.g. `https://cdn.example.com/Images.warmcache/`
    ///     (a missing final `/` is added).
    ///   - directory: The local bundle directory to keep current, in a folder the app can write
    ///     (Application Support, not Caches, if the images must survive low storage). It is
    ///     created when missing.
    ///   - configuration: The trusted keys, seed bundles and limits.
    /// - Throws: ``BundleUpdateError``: `insecureURL` for a base URL that is not `https`, or
    ///   `http` to a loopback host, unless ``Configuration/allowsInsecureHTTP``; `noTrustedKeys`
    ///   without ``Configuration/trustedKeys`` unless ``Configuration/allowsUnsignedUpdates``.
    public convenience init(from baseURL: URL, into directory: URL,
                            configuration: Configuration = Configuration()) throws {
        try self.init(from: baseURL, into: directory, configuration: configuration, now: { Date() })
    }

    init(from baseURL: URL, into directory: URL, configuration: Configuration,
         now: @escaping @Sendable () -> Date) throws {
        let text = baseURL.absoluteString
        self.baseURL = text.hasSuffix("/") ? baseURL : URL(string: text + "/") ?? baseURL
        self.directory = directory.standardizedFileURL
        self.configuration = configuration
        self.now = now
        guard Self.isAllowed(self.baseURL, insecureAllowed: configuration.allowsInsecureHTTP) else {
            throw BundleUpdateError(.insecureURL, url: baseURL)
        }
        guard !configuration.trustedKeys.isEmpty || configuration.allowsUnsignedUpdates else {
            throw BundleUpdateError(.noTrustedKeys, url: self.baseURL)
        }
    }

    /// Whether updates must be signed: whenever keys are trusted.
    var requiresSignature: Bool { !configuration.trustedKeys.isEmpty }

    /// `https` always; `http` only to loopback or when allowed.
    static func isAllowed(_ url: URL, insecureAllowed: Bool) -> Bool {
        guard let host = url.host?.lowercased(), !host.isEmpty else { return false }
        switch url.scheme?.lowercased() {
        case "https": return true
        case "http": return insecureAllowed || ["127.0.0.1", "::1", "[::1]", "localhost"].contains(host)
        default: return false
        }
    }

    var indexURL: URL { baseURL.appendingPathComponent(BundleFormat.indexFileName) }
    var statementURL: URL { baseURL.appendingPathComponent(BundleFormat.statementFileName) }
    var workURL: URL { directory.appendingPathComponent(Self.workDirectoryName) }
    var incomingURL: URL { workURL.appendingPathComponent("incoming") }
    /// Blobs downloaded and verified for a release not installed yet (moved into `objects/` when
    /// it is; kept after a transient failure so the next update resumes).
    var verifiedURL: URL { workURL.appendingPathComponent("verified") }
    var stateURL: URL { workURL.appendingPathComponent("state.json") }
    var previousIndexURL: URL { directory.appendingPathComponent(ObjectStore.previousIndexPath) }
    var installedIndexURL: URL { directory.appendingPathComponent(BundleFormat.indexFileName) }
    var installedStatementURL: URL { directory.appendingPathComponent(BundleFormat.statementFileName) }

    // MARK: Running

    /// Runs one update; progress goes to `progress` if given. Cancel the calling task to stop it
    /// (it then throws `CancellationError` and leaves the directory as it was).
    ///
    /// Call it when the app starts or comes to the foreground; when nothing changed it costs one
    /// conditional request. Updates of one directory exclude each other, also across processes.
    ///
    /// ```swift
    /// if try await updater.update().outcome == .updated { reopenTheBundle() }
    /// ```
    ///
    /// - Parameter progress: Where to send ``UpdateProgress`` while the update runs; `nil` for none.
    /// - Returns: What the update did: ``UpdateResult/outcome`` says whether a new version is installed.
    /// - Throws: ``BundleUpdateError`` (a refused check, a server or network failure, `busy` when
    ///   another update of the directory runs), `CancellationError`.
    public func update(progress: AsyncStream<UpdateProgress>.Continuation? = nil) async throws -> UpdateResult {
        // The same rule as the builder's: never write beside someone else's files.
        if let refusal = ObjectStore.refusal(toWriteBundleAt: directory.path) {
            throw BundleUpdateError(.notABundle, url: directory, detail: refusal)
        }
        let existed = FileManager.default.fileExists(atPath: directory.path)
        let first = !FileManager.default.fileExists(atPath: installedIndexURL.path)
        do {
            try prepareDirectories()
        } catch {
            if first { removeFirstUpdate(existed: existed, keepingVerified: false) }
            throw error
        }
        guard let lock = try fileSystem("locking", { try DirectoryLock(file: workURL.appendingPathComponent("lock")) })
        else { throw BundleUpdateError(.busy, url: directory) }
        defer { lock.unlock() }
        let transport = HTTPTransport(origin: baseURL, timeout: configuration.timeout,
                                      connections: configuration.maximumConcurrentDownloads)
        defer { transport.close() }
        var run = UpdateRun(updater: self, transport: transport, progress: progress)
        do {
            return try await run.run()
        } catch {
            // A first update that fails leaves nothing new: the folder goes if it created it.
            // After a transient failure its verified blobs wait for the next update, which resumes.
            if first, !FileManager.default.fileExists(atPath: installedIndexURL.path) {
                removeFirstUpdate(existed: existed, keepingVerified: UpdateRun.isResumable(error))
            }
            throw error
        }
    }

    /// Removes what a failed first update created: the whole folder if it did not exist before
    /// (unless verified blobs are kept for the next update), else the updater's files in it.
    private func removeFirstUpdate(existed: Bool, keepingVerified: Bool) {
        let fileManager = FileManager.default
        let hasVerified = !((try? fileManager.contentsOfDirectory(atPath: verifiedURL.path)) ?? []).isEmpty
        if keepingVerified, hasVerified {
            // Only `.update/verified/` stays: the lock file goes too (while held, as when the
            // whole folder goes), and anything else the update created.
            let work = (try? fileManager.contentsOfDirectory(atPath: workURL.path)) ?? []
            for name in work where name != verifiedURL.lastPathComponent {
                try? fileManager.removeItem(at: workURL.appendingPathComponent(name))
            }
            try? fileManager.removeItem(at: directory.appendingPathComponent(BundleFormat.objectsDirectoryName))
            return
        }
        if !existed {
            try? fileManager.removeItem(at: directory)
        } else {
            for name in [Self.workDirectoryName, BundleFormat.objectsDirectoryName, BundleFormat.statementFileName] {
                try? fileManager.removeItem(at: directory.appendingPathComponent(name))
            }
        }
    }

    /// Starts an update on a new task and returns its progress stream (finished when the update
    /// ends) and the task (await `value` for the result; `cancel()` to stop).
    public func start() -> (progress: AsyncStream<UpdateProgress>, task: Task<UpdateResult, Error>) {
        let (stream, continuation) = AsyncStream<UpdateProgress>.makeStream(bufferingPolicy: .bufferingNewest(64))
        let task = Task {
            defer { continuation.finish() }
            return try await update(progress: continuation)
        }
        return (stream, task)
    }

    // MARK: Local files

    private func prepareDirectories() throws {
        try fileSystem("creating the update directory") {
            try FileManager.default.createDirectory(at: incomingURL, withIntermediateDirectories: true)
            try FileManager.default.createDirectory(at: verifiedURL, withIntermediateDirectories: true)
        }
    }

    func fileSystem<T>(_ action: String, _ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as BundleUpdateError {
            throw error
        } catch {
            throw BundleUpdateError(.fileSystem, url: directory, detail: "\(action): \(PlainReason.of(error))")
        }
    }

    /// `rename(2)`: replaces `destination` atomically.
    static func atomicReplace(_ destination: URL, with source: URL) throws {
        guard rename(source.path, destination.path) == 0 else {
            throw CocoaError(.fileWriteUnknown, userInfo: [
                NSFilePathErrorKey: destination.path,
                NSLocalizedDescriptionKey: "renaming \(source.lastPathComponent) to \(destination.path): "
                    + String(cString: strerror(errno)),
            ])
        }
    }

    static func hex(_ digest: SHA256.Digest) -> String {
        digest.map { String(format: "%02x", $0) }.joined()
    }
}
