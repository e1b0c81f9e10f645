import CVipsShim

/// The process-wide libvips state: initialised once, configured by each engine.
enum VipsRuntime {
    /// libvips initialisation runs once per process (Swift's lazy statics are thread-safe,
    /// and the shim guards it with `pthread_once` for other callers).
    static let isInitialised: Bool = wc_vips_init() == 0

    /// What this libvips build can encode; probed once, on first use.
    static let capabilities: EncoderCapabilities = EncoderCapabilities.probe()

    /// Starts libvips and applies `configuration`'s process-wide settings.
    ///
    /// The operation cache is switched off: every source is different, so cached operations
    /// would only hold memory (and input buffers) alive. Threads per pipeline are set from the
    /// configuration; parallelism comes from rendering several sources at once.
    static func start(_ configuration: ImagingConfiguration) throws(ImagingError) {
        guard isInitialised else {
            throw ImagingError(.engineUnavailable, source: "libvips", message: "libvips failed to initialise",
                               libvipsMessage: VipsCallError.take("init").log)
        }
        if let arenas = configuration.mallocArenaLimit {
            wc_limit_malloc_arenas(Int32(arenas))
        }
        wc_vips_configure(Int32(max(1, configuration.threadsPerImage)), 0, 0, 0)
    }

    /// The libvips version, e.g. `8.14.1`.
    static var version: String {
        String(cString: wc_vips_version())
    }
}
