/// Whether libvips' vectorised code paths are safe to run, from the versions in the process.
///
/// libvips up to 8.14 builds its SIMD paths (resampling, convolution, morphology, some
/// arithmetic) with liborc: every operation instance compiles its own orc program when it is
/// built and frees it when it is disposed. liborc before 0.4.34 hands out and returns the
/// executable memory for that code without holding its lock (`orc_code_allocate_codemem`
/// takes a free chunk, unlocks, then splits it and marks it used; `orc_code_chunk_free` merges
/// and frees neighbouring chunks with no lock at all). Two threads building or disposing
/// resizes at the same time can get the same chunk — one thread's code is overwritten while
/// another runs it — or free a chunk record the other is splitting: a SIGSEGV inside
/// liborc-generated code or a corrupted malloc heap, a few thousand renders into a run.
/// libvips 8.15 replaced liborc with highway, whose code is compiled ahead of time.
///
/// So on libvips < 8.15 with liborc loaded, `automatic` turns the vector paths off. liborc
/// 0.4.34 fixed the race upstream, but libvips 8.14 has not been checked with it here, so it
/// is not re-enabled automatically: ``ImagingRuntime/VectorPaths/on`` does that. A process that
/// renders one source at a time (`oneRenderAtATime`: the warm's imaging processes, like the
/// pyvips processes people compare with) keeps libvips' choice: the race needs two renders.
enum VectorPolicy {
    struct Decision: Equatable {
        var enabled: Bool
        var reason: String
    }

    /// - Parameters:
    ///   - libvipsDefault: what libvips chose at start-up (off with `VIPS_NOVECTOR=1`).
    static func decide(_ choice: ImagingRuntime.VectorPaths, libvips: String, orc: String?,
                       libvipsDefault: Bool) -> Decision {
        switch choice {
        case .on:
            return Decision(enabled: true, reason: "on by setting")
        case .off:
            return Decision(enabled: false, reason: "off by setting")
        case .oneRenderAtATime:
            return Decision(enabled: libvipsDefault,
                            reason: libvipsDefault ? "on: this process renders one source at a time, so liborc's code "
                                + "memory is never used by two renders at once" : "off (VIPS_NOVECTOR is set)")
        case .automatic:
            if let orc, isBefore(libvips, "8.15") {
                return Decision(enabled: false,
                                reason: "off: libvips \(libvips) runs its vector paths through liborc \(orc), "
                                    + "whose code memory is not thread-safe (concurrent renders crash)")
            }
            return Decision(enabled: libvipsDefault,
                            reason: libvipsDefault ? "on (libvips default)" : "off (VIPS_NOVECTOR is set)")
        }
    }

    /// Whether dotted version `version` is older than `other` ("8.14.1" < "8.15").
    static func isBefore(_ version: String, _ other: String) -> Bool {
        func parts(_ text: String) -> [Int] {
            text.split(separator: ".").map { part in Int(part.prefix(while: \.isNumber)) ?? 0 }
        }
        let left = parts(version), right = parts(other)
        for index in 0..<max(left.count, right.count) {
            let a = index < left.count ? left[index] : 0
            let b = index < right.count ? right[index] : 0
            if a != b { return a < b }
        }
        return false
    }
}
