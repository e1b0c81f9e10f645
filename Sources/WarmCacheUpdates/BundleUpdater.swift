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

/// Keeps a local bundle directory in step with a bundle published as static files, downloading
/// only what changed.
///
/// ```swift
/// let updater = try BundleUpdater(from: URL(string: "https://cdn.example.com/Images.warmcache/")!,
///                                 into: appSupport.appendingPathComponent("Images.warmcache"))
/// let result = try await updater.update()      // cancellable: cancel the surrounding Task
/// if result.outcome == .updated { reopenTheBundle() }
/// ```
///
/// One update:
/// 1. revalidates `<base>/index.sqlite` with one conditional GET (`If-None-Match` /
///    `If-Modified-Since` from the last install); `304` ends it;
/// 2. otherwise checks the new index like any untrusted file (size limit, SQLite integrity,
///    application id, format version, every blob name and size);
/// 3. works out which blobs are not on disk yet (or in a seed bundle such as the one the app
///    ships) and downloads only those, a few at a time, checking each one's size and SHA-256;
/// 4. switches `index.sqlite` to the new version with one atomic rename, then deletes the blobs
///    that neither the new index nor the one it replaced references.
///
/// Until step 4 the directory is the previous complete version. An update that fails or is
/// interrupted (error, cancellation, app killed) leaves it so; the blobs it had verified stay,
/// so the next update resumes where it stopped. The directory is a plain bundle: open it with
/// `CacheBundle(contentsOf:)`, or read it over the shipped bundle with `LayeredCacheBundle`.
/// Blobs of the replaced version are kept until the following update, so a reader opened before
/// the switch keeps working; open a new reader after an update to see the new version.
public final class BundleUpdater: Sendable {
    /// Tuning and safety limits.
    public struct Configuration: Sendable {
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
        /// app's resources. Copies are verified like downloads.
        public var seedBundles: [URL]

        public init(maximumConcurrentDownloads: Int = 6, timeout: TimeInterval = 30,
                    maximumIndexByteCount: Int = 64 << 20, allowsInsecureHTTP: Bool = false,
                    seedBundles: [URL] = []) {
            self.maximumConcurrentDownloads = maximumConcurrentDownloads
            self.timeout = timeout
            self.maximumIndexByteCount = maximumIndexByteCount
            self.allowsInsecureHTTP = allowsInsecureHTTP
            self.seedBundles = seedBundles
        }
    }

    /// The published bundle directory (`…/Images.warmcache/`).
    public let baseURL: URL
    /// The local bundle directory this updater maintains.
    public let directory: URL
    public let configuration: Configuration

    /// The updater's private files inside ``directory``.
    static let workDirectoryName = ".update"

    /// - Throws: ``BundleUpdateError`` (`insecureURL`) for a base URL that is not `https`, or
    ///   `http` to a loopback host, unless ``Configuration/allowsInsecureHTTP``.
    public init(from baseURL: URL, into directory: URL, configuration: Configuration = Configuration()) throws {
        let text = baseURL.absoluteString
        self.baseURL = text.hasSuffix("/") ? baseURL : URL(string: text + "/") ?? baseURL
        self.directory = directory.standardizedFileURL
        self.configuration = configuration
        guard Self.isAllowed(self.baseURL, insecureAllowed: configuration.allowsInsecureHTTP) else {
            throw BundleUpdateError(.insecureURL, url: baseURL)
        }
    }

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
    var workURL: URL { directory.appendingPathComponent(Self.workDirectoryName) }
    var incomingURL: URL { workURL.appendingPathComponent("incoming") }
    var stateURL: URL { workURL.appendingPathComponent("state.json") }
    var previousIndexURL: URL { workURL.appendingPathComponent("previous.sqlite") }
    var installedIndexURL: URL { directory.appendingPathComponent(BundleFormat.indexFileName) }

    // MARK: Running

    /// Runs one update; progress goes to `progress` if given. Cancel the calling task to stop it
    /// (it then throws `CancellationError` and leaves the directory as it was).
    /// - Throws: ``BundleUpdateError``, `CancellationError`.
    public func update(progress: AsyncStream<UpdateProgress>.Continuation? = nil) async throws -> UpdateResult {
        try prepareDirectories()
        guard let lock = try fileSystem("locking", { try DirectoryLock(file: workURL.appendingPathComponent("lock")) })
        else { throw BundleUpdateError(.busy, url: directory) }
        defer { lock.unlock() }
        let transport = HTTPTransport(origin: baseURL, timeout: configuration.timeout,
                                      connections: configuration.maximumConcurrentDownloads)
        defer { transport.close() }
        var run = UpdateRun(updater: self, transport: transport, progress: progress)
        return try await run.run()
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
        }
    }

    func fileSystem<T>(_ action: String, _ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as BundleUpdateError {
            throw error
        } catch {
            throw BundleUpdateError(.fileSystem, url: directory, detail: "\(action): \(error.localizedDescription)")
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
