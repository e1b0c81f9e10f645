import CVipsShim
import Foundation

/// libvips' process-wide state, started once, with settings that hold for the whole process.
///
/// libvips keeps its thread-pool size, operation cache, vector (SIMD) switch and error buffer
/// per process, and glibc's malloc tuning is per process too. They are set here, once, by name,
/// rather than by whichever ``ImagingEngine`` happens to be created first:
///
/// ```swift
/// // Optional: only to change a default, before anything else uses libvips.
/// try ImagingRuntime.start(ImagingRuntime.Settings(threadsPerImage: 2))
///
/// let engine = try ImagingEngine()        // starts the runtime with default settings if nothing did
/// ImagingEngine.availableFormats()        // also starts it: valid before any engine exists
/// ImagingRuntime.state?.vectorPathsEnabled
/// ```
///
/// The first start wins. Starting again with the same settings does nothing; with different
/// settings it throws, because they could no longer take effect for what already runs.
public enum ImagingRuntime {
    /// The process-wide settings.
    public struct Settings: Sendable, Hashable, CustomStringConvertible {
        /// libvips worker threads per image pipeline. Parallelism comes from rendering several
        /// sources at once from Swift tasks; 1 avoids oversubscribing the cores.
        public var threadsPerImage: Int
        /// When set, caps glibc's malloc arenas (no effect on other C libraries) and fixes its
        /// mmap and trim thresholds (8 and 16 MB). Threads decoding large images otherwise spread
        /// freed memory over many arenas: on 43 wallpapers with 2 workers, peak RSS fell from
        /// 375–545 MB to 245–257 MB at the same speed with 2 arenas. `nil` leaves malloc alone.
        public var mallocArenaLimit: Int?
        /// Whether libvips may run its vectorised (SIMD) code paths.
        public var vectorPaths: VectorPaths

        public init(threadsPerImage: Int = 1, mallocArenaLimit: Int? = 2, vectorPaths: VectorPaths = .automatic) {
            self.threadsPerImage = threadsPerImage
            self.mallocArenaLimit = mallocArenaLimit
            self.vectorPaths = vectorPaths
        }

        public var description: String {
            "threadsPerImage \(threadsPerImage), mallocArenaLimit \(mallocArenaLimit.map(String.init) ?? "none"), "
                + "vectorPaths \(vectorPaths.rawValue)"
        }
    }

    /// libvips' vectorised code paths: liborc-generated code up to libvips 8.14, highway from 8.15.
    public enum VectorPaths: String, Sendable, Hashable, Codable {
        /// Off where they are known to crash under concurrency (see ``VectorPolicy``), otherwise
        /// libvips' own choice (which honours `VIPS_NOVECTOR=1`).
        case automatic
        /// For a process that renders one source at a time (the warm's imaging processes):
        /// libvips' own choice, even where ``automatic`` turns them off. The crash needs two
        /// renders building or disposing operations at the same time; a lone render builds and
        /// disposes its operations on the one thread that drives it.
        case oneRenderAtATime
        /// Always on, even where they are known to crash.
        case on
        /// Always off: the plain C paths.
        case off
    }

    /// What the running process uses.
    public struct State: Sendable, Hashable {
        /// The settings the runtime was started with.
        public var settings: Settings
        /// The libvips version, e.g. `8.14.1`.
        public var libvipsVersion: String
        /// The version of the liborc libvips loaded, if any (libvips up to 8.14 uses it).
        public var orcVersion: String?
        /// Whether libvips runs its vectorised code paths.
        public var vectorPathsEnabled: Bool
        /// Why the vector paths are on or off.
        public var vectorPathsReason: String
        /// What libvips chose at start-up, before the settings applied (off with `VIPS_NOVECTOR=1`).
        var vectorPathsByDefault: Bool

        /// What `choice` would decide in a process started like this one (same libraries, same
        /// environment): how a warm knows what its imaging processes run.
        func vectorPaths(_ choice: VectorPaths) -> Bool {
            VectorPolicy.decide(choice, libvips: libvipsVersion, orc: orcVersion, libvipsDefault: vectorPathsByDefault)
                .enabled
        }
    }

    /// The running state; `nil` until something started the runtime.
    public static var state: State? {
        lock.lock()
        defer { lock.unlock() }
        return current
    }

    /// Starts libvips (once per process) with `settings`; returns the running state.
    ///
    /// - Throws: ``ImagingError/Kind/engineUnavailable`` if libvips cannot initialise, or if the
    ///   runtime already runs with other settings (start it once, before the first engine).
    @discardableResult
    public static func start(_ settings: Settings = Settings()) throws(ImagingError) -> State {
        lock.lock()
        defer { lock.unlock() }
        if let current {
            guard current.settings == settings else {
                throw ImagingError(.engineUnavailable, source: "libvips",
                                   message: "the imaging runtime already runs with \(current.settings); start it "
                                       + "once, before creating any ImagingEngine or probing formats, to use "
                                       + "\(settings)")
            }
            return current
        }
        let state = try launch(settings)
        current = state
        return state
    }

    /// The running state, starting the runtime with default settings if nothing has started it.
    @discardableResult
    static func started() throws(ImagingError) -> State {
        lock.lock()
        defer { lock.unlock() }
        if let current { return current }
        let state = try launch(backgroundSettings ?? Settings())
        current = state
        return state
    }

    /// Gives the memory the C allocator kept after frees back to the system. An imaging process
    /// calls it after a large render: it then waits at its idle size, which is what a warm's
    /// memory limit counts for it (`ImagingProcessPool/idleProcessMemory`).
    package static func releaseFreedMemory() {
        wc_release_freed_memory()
    }

    /// Starts the runtime with `settings` on another thread and returns at once, so that
    /// libvips' start (loading its modules: ~15 ms) overlaps what the caller does next, such as
    /// reading a manifest. Whatever needs the runtime first waits for that start (or makes it,
    /// with the same settings); a start that fails is tried again, and reported, there.
    ///
    /// The process then does not exit before that start is over: an exit while another thread is
    /// still loading libvips' modules runs library destructors under it, and the process can
    /// abort instead of exiting (seen in CI, with libgomp's `goacc_register` assertion, when a
    /// warm rejected its manifest a few milliseconds after it started). An `atexit` handler waits
    /// for the start, or makes it if the background thread has not begun.
    package static func startInBackground(_ settings: Settings = Settings()) {
        lock.lock()
        backgroundSettings = settings
        let registersExitWait = !exitWaitRegistered
        exitWaitRegistered = true
        lock.unlock()
        if registersExitWait {
            atexit { _ = try? ImagingRuntime.started() }
        }
        Thread.detachNewThread { _ = try? started() }
    }

    /// Whether ``startInBackground(_:)`` registered its exit handler (once per process).
    nonisolated(unsafe) private static var exitWaitRegistered = false

    /// The settings ``startInBackground(_:)`` was given, for whichever start comes first.
    nonisolated(unsafe) private static var backgroundSettings: Settings?

    /// What this libvips build can encode; each format probed on first use (starting the runtime if needed).
    static let capabilities = EncoderCapabilities()

    /// Initialises libvips and applies `settings`. Called once, under ``lock``.
    private static func launch(_ settings: Settings) throws(ImagingError) -> State {
        guard wc_vips_init() == 0 else {
            throw ImagingError(.engineUnavailable, source: "libvips", message: "libvips failed to initialise",
                               libvipsMessage: VipsCallError.take("init").log)
        }
        if let arenas = settings.mallocArenaLimit {
            wc_limit_malloc_arenas(Int32(arenas))
        }
        // The operation cache is off: every source is different, so cached operations would
        // only hold memory (and input buffers) alive.
        wc_vips_configure(Int32(max(1, settings.threadsPerImage)), 0, 0, 0)

        let libvips = String(cString: wc_vips_version())
        let orc = wc_orc_version().map { String(cString: $0) }
        let byDefault = wc_vips_vector_enabled() != 0
        let decision = VectorPolicy.decide(settings.vectorPaths, libvips: libvips, orc: orc, libvipsDefault: byDefault)
        wc_vips_set_vector_enabled(decision.enabled ? 1 : 0)
        return State(settings: settings, libvipsVersion: libvips, orcVersion: orc,
                     vectorPathsEnabled: wc_vips_vector_enabled() != 0, vectorPathsReason: decision.reason,
                     vectorPathsByDefault: byDefault)
    }

    nonisolated(unsafe) private static var current: State?
    private static let lock = NSLock()
}
