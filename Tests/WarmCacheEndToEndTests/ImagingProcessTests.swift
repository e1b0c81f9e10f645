import Foundation
import Testing
import WarmCache
@testable import WarmCacheBuilder
@testable import WarmCacheImaging
import WarmCacheTestSupport

/// Rendering in imaging processes (what the CLI does): the same bytes as rendering in the warm's
/// own process, the same errors for bad images, and a crashing process fails one source only.
@Suite struct ImagingProcessTests {
    static func workerCommand() throws -> [String] {
        guard let executable = CLI.executable else { throw CLIError.notBuilt }
        return [executable.path, "imaging-worker"]
    }

    @Test func aWarmInImagingProcessesGivesTheSameBundleAsInProcess() async throws {
        let images = try SourceImages.distinct(12)
        let routes = SourceImages.routes(images, under: "p")
        try await withWorld(routes: routes) { scratch, server in
            let urls = (0..<images.count).map { server.url("/p/\($0)") }
            let defaults = """
                defaults:
                  placeholder: [thumbhash, blurhash, average]
                """
            let manifest = try scratch.write(Manifests.yaml(urls: urls, defaults: defaults), to: "manifest.yml")
            let inProcess = try await Warm.run(manifest, output: scratch.path("A/Images.warmcache"),
                                               options: Warm.options(cache: scratch.path("cache-a"), imaging: 2))
                .published()
            var options = Warm.options(cache: scratch.path("cache-b"), imaging: 3)
            options.imagingProcessCommand = try Self.workerCommand()
            // The processes decide on libvips' vector paths as this process did (they round differently).
            options.imagingProcessVectorPaths = .automatic
            let processes = try await Warm.run(manifest, output: scratch.path("B/Images.warmcache"), options: options)
                .published()
            #expect(processes.totals.variantsEncoded == images.count * Manifests.variantsPerSource)
            #expect(processes.totals.variantsEncoded == inProcess.totals.variantsEncoded)
            let a = snapshot(of: scratch.path("A/Images.warmcache"))
            let b = snapshot(of: scratch.path("B/Images.warmcache"))
            #expect(a.count > images.count)
            #expect(a == b, "bundles differ: \(differences(a, b))")
        }
    }

    @Test func aBadImageFailsInAProcessAsItDoesInProcess() throws {
        let engine = try ImagingEngine()
        // Vector paths as this process has them, so that the renders compare byte for byte.
        let pool = ImagingProcessPool(command: try Self.workerCommand(), configuration: engine.configuration,
                                      vectorPaths: .automatic)
        defer { pool.shutdown() }
        let good = try SourceImages.fixture("chelsea.jpg").bytes
        let truncated = try engine.open(Data(good.prefix(good.count * 2 / 3)), name: "truncated.jpg")
        let specs = [VariantSpec(width: 64, height: 64, format: .jpeg)]
        let local = #expect(throws: ImagingError.self) { try truncated.render(specs) }
        let remote = #expect(throws: ImagingError.self) {
            try pool.render(truncated.bytes, name: "truncated.jpg", specs: specs, alphaSpecs: specs, placeholder: [])
        }
        #expect(remote?.kind == local?.kind && remote?.source == "truncated.jpg")
        #expect(remote?.message == local?.message)
        // The process is still there for the next source, and renders it.
        let whole = try engine.open(Data(good), name: "chelsea.jpg")
        let (info, rendered) = try pool.render(whole.bytes, name: "chelsea.jpg", specs: specs, alphaSpecs: [],
                                               placeholder: .thumbHash)
        #expect(info == whole.info)
        #expect(rendered == (try whole.render(specs, placeholder: .thumbHash)))
    }

    /// A process is sent each spec set once and then only its number; past the number it
    /// remembers, sets travel with their jobs. Either way every render is the in-process one.
    @Test func specSetsSentOnceByNumberAndBeyondTheLimitInFull() throws {
        let engine = try ImagingEngine()
        let pool = ImagingProcessPool(command: try Self.workerCommand(), configuration: engine.configuration,
                                      vectorPaths: .automatic)
        defer { pool.shutdown() }
        let source = try engine.open(Data(try SourceImages.fixture("coffee.jpg").bytes), name: "coffee.jpg")
        func specs(_ width: Int) -> [VariantSpec] {
            [VariantSpec(width: width, height: nil, format: .jpeg), VariantSpec(width: width, height: width, format: .png)]
        }
        // Sets 1…limit+20, then early and late ones again; each compared with rendering here.
        let limit = ImagingWire.rememberedSpecSets
        let widths = Array(1...(limit + 20)) + [1, 2, limit, limit + 1, limit + 20, 3]
        for width in widths {
            let (info, rendered) = try pool.render(source.bytes, name: source.name, specs: specs(width),
                                                   alphaSpecs: specs(width + 1), placeholder: [])
            #expect(info == source.info)
            #expect(rendered == (try source.render(specs(width), placeholder: [])), "width \(width)")
        }
    }

    /// Many callers at once share a few processes through the pool's queue; each gets its own
    /// source's render, the one this process makes.
    @Test func callersBeyondTheProcessesQueueAndEachGetsItsOwnRender() throws {
        let engine = try ImagingEngine()
        let pool = ImagingProcessPool(command: try Self.workerCommand(), configuration: engine.configuration,
                                      vectorPaths: .automatic, processes: 2)
        defer { pool.shutdown() }
        let sources = try ["coffee.jpg", "chelsea.jpg"].map { name in
            try engine.open(Data(try SourceImages.fixture(name).bytes), name: name)
        }
        let widths = Array(16..<56)
        let answers = Locked<[Int: Bool]>([:])
        DispatchQueue.concurrentPerform(iterations: widths.count) { index in
            let source = sources[index % sources.count]
            let specs = [VariantSpec(width: widths[index], height: nil, format: .jpeg)]
            let same = (try? pool.render(source.bytes, name: source.name, specs: specs, alphaSpecs: specs,
                                         placeholder: .thumbHash))
                .map { info, rendered in
                    info == source.info && rendered == (try? source.render(specs, placeholder: .thumbHash))
                } ?? false
            answers.withLock { $0[widths[index]] = same }
        }
        let answered = answers.withLock { $0 }
        #expect(answered.count == widths.count)
        #expect(answered.values.allSatisfy { $0 }, "renders that differ: \(answered.filter { !$0.value }.keys.sorted())")
    }

    /// An imaging process loads libvips' HEIF and JPEG XL modules only when a source needs them:
    /// an AVIF or JPEG XL original rendered to JPEG (no encoder probed) still opens and renders as
    /// it does here.
    @Test func heifAndJPEGXLOriginalsRenderInAFreshProcess() throws {
        let engine = try ImagingEngine()
        let photo = try engine.open(Data(try SourceImages.fixture("coffee.jpg").bytes), name: "coffee.jpg")
        let jpeg = [VariantSpec(width: 48, height: nil, format: .jpeg)]
        for format in [ImageFormat.avif, .jxl] {
            let original = try photo.render([VariantSpec(width: 160, height: nil, format: format)])[0].data
            let source = try engine.open(original, name: "coffee.\(format.rawValue)")
            let pool = ImagingProcessPool(command: try Self.workerCommand(), configuration: engine.configuration,
                                          vectorPaths: .automatic, processes: 1)
            defer { pool.shutdown() }
            let (info, rendered) = try pool.render(source.bytes, name: source.name, specs: jpeg, alphaSpecs: jpeg,
                                                   placeholder: [])
            let here = try source.render(jpeg, placeholder: [])
            #expect(info == source.info && rendered == here, "\(format)")
        }
    }

    /// Processes started ahead (while a warm's first originals download) take the first sources;
    /// no more are started than the pool holds, and none once it is shut down.
    @Test func prestartedProcessesTakeTheFirstSources() throws {
        let engine = try ImagingEngine()
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("prestart-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }
        let starts = scratch.appendingPathComponent("starts").path
        // Each process notes its start, then becomes an imaging process.
        let worker = try Self.workerCommand().map { "'\($0)'" }.joined(separator: " ")
        let pool = ImagingProcessPool(command: ["/bin/sh", "-c", "echo started >> '\(starts)'; exec \(worker)"],
                                      configuration: engine.configuration, vectorPaths: .automatic, processes: 2)
        func started() -> Int {
            ((try? String(contentsOfFile: starts, encoding: .utf8)) ?? "").split(separator: "\n").count
        }
        pool.prestart(5)
        // Waits for the two starts (the machine may be busy: up to two minutes), not for a time.
        let deadline = Date().addingTimeInterval(120)
        while started() < 2, Date() < deadline { usleep(10_000) }
        #expect(started() == 2)
        let source = try engine.open(Data(try SourceImages.fixture("coffee.jpg").bytes), name: "coffee.jpg")
        let specs = [VariantSpec(width: 40, height: nil, format: .jpeg)]
        for _ in 0..<3 {
            let (info, rendered) = try pool.render(source.bytes, name: source.name, specs: specs, alphaSpecs: specs,
                                                   placeholder: [])
            let here = try source.render(specs, placeholder: [])
            #expect(info == source.info && rendered == here)
        }
        pool.shutdown()
        pool.prestart(2)
        #expect(started() == 2)
    }

    /// Under a memory limit, sources that each need more than the room left render one at a
    /// time, in one process: the others wait, and start no process of their own.
    @Test func aMemoryLimitShrinksTheRendersAndProcessesInFlight() throws {
        let engine = try ImagingEngine()
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("memory-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }
        let starts = scratch.appendingPathComponent("starts").path
        let worker = try Self.workerCommand().map { "'\($0)'" }.joined(separator: " ")
        let pool = ImagingProcessPool(command: ["/bin/sh", "-c", "echo started >> '\(starts)'; exec \(worker)"],
                                      configuration: engine.configuration, vectorPaths: .automatic, processes: 4,
                                      memoryLimit: ImagingProcessPool.idleProcessMemory + (100 << 20))
        let source = try engine.open(Data(try SourceImages.fixture("coffee.jpg").bytes), name: "coffee.jpg")
        let specs = [VariantSpec(width: 48, height: nil, format: .jpeg)]
        let here = try source.render(specs, placeholder: [])
        let same = Locked(0)
        DispatchQueue.concurrentPerform(iterations: 8) { _ in
            let answer = try? pool.render(source.bytes, name: source.name, specs: [specs], alphaSpecs: [specs],
                                          placeholder: [], memory: 80 << 20)
            if answer?.1 == here { same.withLock { $0 += 1 } }
        }
        pool.shutdown()
        #expect(same.withLock { $0 } == 8)
        let started = ((try? String(contentsOfFile: starts, encoding: .utf8)) ?? "").split(separator: "\n").count
        #expect(started == 1)
    }

    @Test func aPrestartThatCannotStartIsReportedWithTheFirstSource() throws {
        let engine = try ImagingEngine()
        let pool = ImagingProcessPool(command: ["/nonexistent/warm-cache", "imaging-worker"],
                                      configuration: engine.configuration)
        defer { pool.shutdown() }
        pool.prestart(1)
        let source = try engine.open(Data(try SourceImages.fixture("coffee.jpg").bytes), name: "coffee.jpg")
        let error = #expect(throws: ImagingError.self) {
            try pool.render(source.bytes, name: source.name, specs: [VariantSpec(width: 32, height: nil, format: .jpeg)],
                            alphaSpecs: [], placeholder: [])
        }
        #expect(error?.message.contains("/nonexistent/warm-cache") == true, "\(String(describing: error))")
    }

    @Test func aPoolThatWasShutDownRefusesNewSources() throws {
        let engine = try ImagingEngine()
        let pool = ImagingProcessPool(command: try Self.workerCommand(), configuration: engine.configuration,
                                      vectorPaths: .automatic, processes: 1)
        let source = try engine.open(Data(try SourceImages.fixture("coffee.jpg").bytes), name: "coffee.jpg")
        let specs = [VariantSpec(width: 32, height: nil, format: .jpeg)]
        _ = try pool.render(source.bytes, name: source.name, specs: specs, alphaSpecs: specs, placeholder: [])
        pool.shutdown()
        let error = #expect(throws: ImagingError.self) {
            try pool.render(source.bytes, name: source.name, specs: specs, alphaSpecs: specs, placeholder: [])
        }
        #expect(error?.kind == .engineUnavailable && error?.message.contains("shut down") == true)
    }

    @Test func aProcessThatDiesFailsItsSourceWithTheReason() throws {
        let engine = try ImagingEngine()
        // Reads the configuration, then dies the way a libvips crash would.
        let pool = ImagingProcessPool(command: ["/bin/sh", "-c", "head -c 4 >/dev/null; kill -SEGV $$"],
                                      configuration: engine.configuration)
        defer { pool.shutdown() }
        let source = try engine.open(Data(try SourceImages.fixture("coffee.jpg").bytes), name: "coffee.jpg")
        let error = #expect(throws: ImagingError.self) {
            try pool.render(source.bytes, name: source.name, specs: [VariantSpec(width: 32, height: nil, format: .jpeg)],
                            alphaSpecs: [], placeholder: [])
        }
        #expect(error?.kind == .processingFailed && error?.source == "coffee.jpg")
        #expect(error?.message.contains("signal \(SIGSEGV)") == true, "\(String(describing: error))")
    }

    @Test func aCommandThatCannotStartIsAClearError() throws {
        let engine = try ImagingEngine()
        let pool = ImagingProcessPool(command: ["/nonexistent/warm-cache", "imaging-worker"],
                                      configuration: engine.configuration)
        let source = try engine.open(Data(try SourceImages.fixture("coffee.jpg").bytes), name: "coffee.jpg")
        let error = #expect(throws: ImagingError.self) {
            try pool.render(source.bytes, name: source.name, specs: [VariantSpec(width: 32, height: nil, format: .jpeg)],
                            alphaSpecs: [], placeholder: [])
        }
        #expect(error?.message.contains("/nonexistent/warm-cache") == true, "\(String(describing: error))")
    }
}
