import Foundation
import WarmCacheImaging

/// How one warm run behaves, beyond what the manifest says.
///
/// The CLI maps its flags onto this; library users build it directly.
public struct WarmOptions: Sendable {
    /// Where downloaded originals and render records live between runs. `nil` uses
    /// `.build/warm-cache` beside the manifest.
    public var cacheDirectory: URL?
    /// Write nothing if any source fails (the previous bundle stays as it was).
    public var strict: Bool
    /// No network at all: every remote source must already be in the originals cache.
    public var offline: Bool
    /// Originals fetched less than this many seconds ago are used without revalidation.
    public var maxAge: TimeInterval?
    /// How many sources are decoded and encoded at once. `nil` means one per core (one more with
    /// ``imagingProcessCommand``).
    public var imagingConcurrency: Int?
    /// Renders in imaging processes started with this command (an executable and its arguments
    /// that serve `ImagingWorker`), one per imaging slot, instead of in this process: the CLI
    /// passes its own executable with `imaging-worker`. Much faster for small images, and a
    /// libvips crash fails one source instead of the run. `nil` renders in this process.
    public var imagingProcessCommand: [String]?
    /// How imaging processes start libvips' vector paths (tests compare them with in-process renders).
    package var imagingProcessVectorPaths: ImagingRuntime.VectorPaths = .oneRenderAtATime
    /// The memory the warm and its imaging processes may hold together, in bytes. `nil` means
    /// ``defaultMemoryLimit``. Imaging processes render fewer sources at once, and fewer
    /// processes start, to stay within it; a source that needs more renders alone.
    public var memoryLimit: Int?
    /// Overrides the manifest's `fetch.concurrency` when set.
    public var fetchConcurrency: Int?
    /// Overrides the manifest's `budget` when set: the most bytes the bundle's files may take.
    public var budget: Int?
    /// Where to write the JSON report with every source (``WarmReport``), whether or not the run
    /// publishes. The report ``WarmPipeline/run()`` returns lists only the failed sources.
    public var reportURL: URL?
    /// Runs with the new index (a complete file beside the one in place) just before it is
    /// published; a throw publishes nothing and fails the run with its message. The CLI signs
    /// the bundle here, so that a signing that fails leaves the previous index and statement.
    public var beforePublishing: (@Sendable (URL) throws -> Void)?

    public init(cacheDirectory: URL? = nil, strict: Bool = false, offline: Bool = false,
                maxAge: TimeInterval? = nil, imagingConcurrency: Int? = nil, fetchConcurrency: Int? = nil,
                reportURL: URL? = nil, imagingProcessCommand: [String]? = nil) {
        self.cacheDirectory = cacheDirectory
        self.strict = strict
        self.offline = offline
        self.maxAge = maxAge
        self.imagingConcurrency = imagingConcurrency
        self.fetchConcurrency = fetchConcurrency
        self.reportURL = reportURL
        self.imagingProcessCommand = imagingProcessCommand
    }

    /// The cache directory for a plan: the one set here, or `.build/warm-cache` next to the manifest.
    public func resolvedCacheDirectory(for plan: WarmPlan) -> URL {
        cacheDirectory?.standardizedFileURL
            ?? plan.manifestURL.deletingLastPathComponent()
                .appendingPathComponent(".build/warm-cache", isDirectory: true)
    }

    /// The default ``memoryLimit``: 192 MiB per core and 64 MiB, at most a quarter of the
    /// machine's memory (448 MiB on 2 cores, 1.6 GiB on 8).
    public static var defaultMemoryLimit: Int {
        let cores = ProcessInfo.processInfo.activeProcessorCount
        let perCores = Int(clamping: Int64(cores) * (192 << 20) + (64 << 20))
        let quarter = Int(clamping: ProcessInfo.processInfo.physicalMemory / 4)
        return max(minimumMemoryLimit, min(perCores, quarter))
    }

    /// The smallest ``memoryLimit`` a warm runs with: the warm's own share and one idle imaging process.
    public static let minimumMemoryLimit = warmProcessMemory + ImagingProcessPool.idleProcessMemory

    /// What the warm's own process holds, counted against ``memoryLimit`` before the imaging
    /// processes: 61–73 MiB measured on photo warms, up to 114 MiB at 100,000 sources.
    static let warmProcessMemory = 112 << 20

    /// The imaging processes' share of the limit.
    var imagingMemoryLimit: Int {
        max(ImagingProcessPool.idleProcessMemory, (memoryLimit ?? Self.defaultMemoryLimit) - Self.warmProcessMemory)
    }

    /// One per core; with imaging processes one more, so that a process always has a source to
    /// render while the warm stores another's variants.
    var resolvedImagingConcurrency: Int {
        let cores = ProcessInfo.processInfo.activeProcessorCount
        return max(1, imagingConcurrency ?? (imagingProcessCommand == nil ? cores : cores + 1))
    }
}
