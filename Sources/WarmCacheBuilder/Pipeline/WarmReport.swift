import Foundation

/// What a warm run did, source by source. Written by `warm --report report.json`.
///
/// Sources appear in identifier order, variants in cache-key order, so two reports of the same
/// run differ only in timings.
public struct WarmReport: Sendable, Codable {
    public var manifest: String
    public var output: String
    /// `ok`, `partial` (some sources failed; the bundle holds the rest), `failed` (nothing written).
    public var status: Status
    public var seconds: Double
    public var totals: Totals
    /// Every source in the report file (``WarmOptions/reportURL``). In the value
    /// ``WarmPipeline/run()`` returns, only the sources that failed, so memory does not grow with
    /// the manifest.
    public var sources: [SourceReport]
    /// Problems that did not fail a source, such as a stale original used after a network error.
    public var warnings: [String]

    public enum Status: String, Sendable, Codable {
        case ok, partial, failed
    }

    public struct Totals: Sendable, Codable, Equatable {
        public var sources = 0
        public var sourcesOK = 0
        public var sourcesFailed = 0
        public var fetched = 0
        public var revalidated = 0
        public var reusedFromCache = 0
        public var variants = 0
        public var variantsEncoded = 0
        public var variantsReused = 0
        public var bytesDownloaded = 0
        public var bytesIn = 0
        public var bytesOut = 0
        public var blobsRemoved = 0

        public init() {}
    }

    public var failures: [SourceReport] { sources.filter { $0.status == .failed } }
}

/// One source in a ``WarmReport``.
public struct SourceReport: Sendable, Codable {
    /// How the original was obtained, or that the source failed.
    public enum Status: String, Sendable, Codable {
        /// Downloaded in full.
        case fetched
        /// The server answered 304: the cached original is current.
        case revalidated
        /// The cached original was used without asking the server (`--offline`, `--max-age`,
        /// or a network failure during revalidation: see the warning).
        case cached
        /// A local file named by `path:`.
        case local
        case failed
    }

    public var identifier: String
    /// The URL or file the original came from.
    public var location: String
    public var status: Status
    public var bytesDownloaded: Int
    public var originalBytes: Int?
    public var originalSHA256: String?
    public var seconds: Double
    public var variants: [VariantReport]
    /// Why the source failed (status `failed`) or what went wrong but was survived.
    public var error: String?
    /// Where the manifest lists this source (`file:line:column`).
    public var listedAt: String
}

/// One variant in a ``SourceReport``.
public struct VariantReport: Sendable, Codable, Equatable {
    public enum Action: String, Sendable, Codable {
        /// Decoded and encoded in this run.
        case encoded
        /// Taken from an earlier run: same original bytes, same specs, same engine.
        case reused
    }

    public var cacheKey: String
    public var presets: [String]
    public var format: String
    public var pixelWidth: Int
    public var pixelHeight: Int
    public var bytes: Int
    public var blob: String
    public var action: Action
}
