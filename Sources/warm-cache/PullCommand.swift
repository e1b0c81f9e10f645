import ArgumentParser
import Foundation
import WarmCacheBuilder
import WarmCacheUpdates
import WarmCache

/// `warm-cache pull https://cdn.example.com/Images.warmcache/ ./Images.warmcache`: the app's
/// over-the-air updater, for scripts and servers.
struct PullCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pull",
        abstract: "Bring a local bundle up to date with one published as static files, downloading only what changed.",
        discussion: """
            Revalidates BASE_URL/statement.json, the publisher's signed statement, with one conditional \
            request; when it names another index, checks it (signed by a --public-key, a version not below \
            DIR's or a --seed's, not expired), downloads that index and checks it is the one signed, \
            downloads the blobs DIR lacks (verifying size and SHA-256), and switches DIR to the new version \
            atomically. DIR keeps its previous complete version on any failure; run again to resume.
            Exit codes: 0 updated or already up to date; 5 the update source failed or served something \
            invalid; 6 the update was refused by a signature, index, rollback, version or expiry check \
            (the message names it); 75 another update of DIR is running; 1 other errors. DIR is unchanged \
            whenever the exit code is not 0.
            """)

    @Argument(help: "The published bundle directory's URL (https; http only for loopback unless --allow-http).")
    var baseURL: String

    @Argument(help: "The local bundle directory to create or update.", completion: .directory)
    var directory: String

    @OptionGroup var keys: PublicKeyOptions

    @Flag(name: .customLong("insecure-unsigned"),
          help: "Install bundles without a signed statement (anyone who can change the server's files can change DIR).")
    var insecureUnsigned = false

    @Flag(help: "Allow plain http to hosts other than loopback.")
    var allowHTTP = false

    @Option(help: "Most blob downloads at once.")
    var concurrency = 6

    @Option(help: "Seconds without data before a request fails.")
    var timeout: Double = 30

    @Option(name: .customLong("max-index-mib"), help: "Largest index accepted, in MiB.")
    var maxIndexMiB = 64

    @Option(name: .customLong("seed"), help: "A bundle to copy blobs from instead of downloading them (repeatable).",
            completion: .directory)
    var seeds: [String] = []

    @Flag(help: "Print the result as JSON.")
    var json = false

    @OptionGroup var logging: QuietOption

    func validate() throws {
        if keys.publicKeys.isEmpty, !insecureUnsigned {
            throw ValidationError("give the publisher's public key with --public-key KEY (the line `warm-cache keygen` "
                + "printed), or --insecure-unsigned to accept unsigned bundles")
        }
    }

    func run() async throws {
        guard let base = URL(string: baseURL), base.scheme != nil else {
            throw ValidationError("BASE_URL must be an absolute URL, e.g. https://cdn.example.com/Images.warmcache/")
        }
        let configuration = BundleUpdater.Configuration(
            trustedKeys: try keys.parsed(), allowsUnsignedUpdates: insecureUnsigned,
            maximumConcurrentDownloads: concurrency, timeout: timeout, maximumIndexByteCount: maxIndexMiB << 20,
            allowsInsecureHTTP: allowHTTP, seedBundles: seeds.map { URL(fileURLWithPath: $0) })
        let local = URL(fileURLWithPath: directory).standardizedFileURL
        let created = Self.outermostMissingFolder(of: local)
        let result: UpdateResult
        do {
            result = try await update(from: base, into: local, configuration: configuration)
        } catch {
            Self.removeIfEmpty(created)
            throw error
        }
        if json {
            try Console.json(VersionedJSON(PullJSON(result), version: JSONVersion.pull))
        } else if !logging.quiet {
            Console.line(Self.summary(of: result))
        }
    }

    /// Runs the update, Ctrl-C and SIGTERM cancelling it; a failure is said in one line and
    /// thrown as its exit code.
    private func update(from base: URL, into local: URL, configuration: BundleUpdater.Configuration) async throws
        -> UpdateResult {
        let interruption = Interruption()
        defer { interruption.end() }
        do {
            let updater = try BundleUpdater(from: base, into: local, configuration: configuration)
            return try await interruption.run { try await updater.update() }
        } catch where interruption.received != nil {
            // Blobs verified before the signal wait in the updater's folder for the next pull.
            Console.error("interrupted: nothing changed; \(directory) is unchanged (the blobs already downloaded "
                + "are kept for the next pull)")
            throw ExitCode(interruption.exitStatus)
        } catch let error as BundleUpdateError {
            Console.error(error.kind == .insecureURL ? insecureURLMessage(base) : "\(PlainReason.of(error))")
            switch error.kind {
            case .busy: throw ExitCodes.locked
            case .fileSystem, .outOfSpace, .notABundle: throw ExitCode.failure
            case .insecureURL: throw ExitCode.validationFailure
            case .unsigned, .invalidStatement, .untrustedKey, .badSignature, .indexMismatch, .rollback,
                 .versionReused, .expired: throw ExitCodes.updateRefused
            default: throw ExitCodes.updateSourceFailed
            }
        }
    }

    /// The refusal of a base URL in this command's words (`--allow-http`, not the library's setting).
    private func insecureURLMessage(_ base: URL) -> String {
        let scheme = base.scheme?.lowercased() ?? ""
        guard scheme == "http" else {
            return "refusing to pull from \(baseURL): pull reads https URLs (http with --allow-http), not \(scheme)://"
        }
        return "refusing to pull from \(baseURL) over plain http: use https, or --allow-http (plain http is allowed "
            + "without it only for loopback addresses); the local bundle is unchanged"
    }

    /// The outermost folder of `url` (itself included) that does not exist yet: what pull creates.
    static func outermostMissingFolder(of url: URL) -> URL? {
        var missing: URL?
        var current = url
        while !FileManager.default.fileExists(atPath: current.path), current.path != "/" {
            missing = current
            current = current.deletingLastPathComponent()
        }
        return missing
    }

    /// After a failed pull, removes the folders it created unless they hold something to keep: an
    /// installed index or blobs downloaded for the next pull (only the updater's lock file and
    /// empty folders go).
    static func removeIfEmpty(_ created: URL?) {
        guard let created, let walker = FileManager.default.enumerator(at: created, includingPropertiesForKeys: [.isRegularFileKey])
        else { return }
        for case let file as URL in walker where (try? file.resourceValues(forKeys: [.isRegularFileKey]))?.isRegularFile == true {
            guard file.lastPathComponent == "lock" else { return }
        }
        try? FileManager.default.removeItem(at: created)
    }

    /// One line: what the pull did.
    static func summary(of result: UpdateResult) -> String {
        // "version 8 (expires …, key …)", or "an unsigned version".
        let release = result.version.map { version in
            "version \(version) (expires " + (result.expiresAt.map(BundleStatement.timestamp) ?? "?")
                + (result.keyID.map { ", key \($0)" } ?? ", signature not checked: --insecure-unsigned") + ")"
        } ?? "an unsigned version"
        switch result.outcome {
        case .upToDate:
            let transferred = result.indexBytes > 0 ? ", index re-sent unchanged" : result.statementBytes > 0
                ? ", statement \(Console.bytes(result.statementBytes))" : ", nothing downloaded"
            return "up to date: \(result.bundleURL.path) at \(release); \(CountText.of(result.requests, "request"))"
                + transferred
        case .updated:
            return "updated \(result.bundleURL.path) to \(release): index \(Console.bytes(result.indexBytes)), "
                + "\(CountText.of(result.blobsDownloaded, "blob")) \(Console.bytes(result.blobBytesDownloaded)) downloaded, "
                + "\(result.blobsReused) already present, \(result.blobsRemoved) superseded removed; "
                + "\(Console.bytes(result.bytesDownloaded)) in \(CountText.of(result.requests, "request"))"
        }
    }
}

/// `pull --json`: the ``UpdateResult``, with the bundle as `path` (the name `inspect` and `verify`
/// give it) and `bytesDownloaded`, everything transferred (the warm report's name for it).
struct PullJSON: Encodable {
    var outcome: UpdateResult.Outcome
    var path: String
    var requests: Int
    var version: Int64?
    var expiresAt: Date?
    var keyID: String?
    var statementBytes: Int64
    var indexBytes: Int64
    var blobsDownloaded: Int
    var blobBytesDownloaded: Int64
    var blobsReused: Int
    var blobsReferenced: Int
    var blobBytesReferenced: Int64
    var blobsRemoved: Int
    var bytesDownloaded: Int64

    init(_ result: UpdateResult) {
        outcome = result.outcome
        path = result.bundleURL.path
        requests = result.requests
        version = result.version
        expiresAt = result.expiresAt
        keyID = result.keyID
        statementBytes = result.statementBytes
        indexBytes = result.indexBytes
        blobsDownloaded = result.blobsDownloaded
        blobBytesDownloaded = result.blobBytesDownloaded
        blobsReused = result.blobsReused
        blobsReferenced = result.blobsReferenced
        blobBytesReferenced = result.blobBytesReferenced
        blobsRemoved = result.blobsRemoved
        bytesDownloaded = result.bytesDownloaded
    }
}
