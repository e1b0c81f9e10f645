import Foundation
import Testing
import WarmCache
import WarmCacheBuilder
import WarmCacheImaging

/// A warm with `quality: auto` and `formats: [smallest]`: every variant reaches its target in
/// the smallest format the platforms decode, the search is remembered, the payload is reported
/// with each file once, and a budget refuses to publish a bundle that is too heavy.
@Suite struct PayloadTests {
    /// Three sources as local files: two photos and one with transparency (rounded corners).
    static func files(in scratch: Scratch) throws {
        for name in ["coffee.jpg", "chelsea.jpg"] {
            try Data(try SourceImages.fixture(name).bytes).write(to: scratch.path(name))
        }
        let coffee = try SourceImages.engine.open(Data(try SourceImages.fixture("coffee.jpg").bytes), name: "coffee")
        let rounded = try coffee.render([VariantSpec(width: 200, height: nil, format: .png, processors: [.roundCorners(radius: 30)])])
        try rounded[0].data.write(to: scratch.path("rounded.png"))
    }

    static func manifest(target: Int) -> String {
        """
        version: 1
        output: Out/Images.warmcache
        platforms: { ios: "16.0" }
        defaults: { formats: [smallest], quality_target: \(target) }
        presets:
          card: { width: 160 }
          thumb: { width: 48, height: 48, fit: cover, scales: [1, 2] }
        images:
          - { path: coffee.jpg, presets: [card, thumb] }
          - { path: chelsea.jpg, presets: [card, thumb] }
          - { path: rounded.png, presets: [card] }
        """
    }

    @Test func smallestAtTheTargetIsRememberedReportedAndCapped() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        try Self.files(in: scratch)
        let manifest = try scratch.write(Self.manifest(target: 80), to: "manifest.yml")
        let options = Warm.options(cache: scratch.path("cache"))
        let bundleURL = scratch.path("Out/Images.warmcache")

        let first = try await Warm.run(manifest, options: options).published()
        let variants = first.sources.flatMap(\.variants)
        #expect(variants.count == 3 + 3 + 1)
        for variant in variants {
            #expect(variant.cacheKey.contains("-target80"), "\(variant.cacheKey)")
            #expect(variant.qualityTarget == 80 && variant.encoderQuality != nil, "\(variant)")
            #expect((variant.qualityScore ?? 0) >= 80 || first.warnings.contains { $0.contains("below its quality_target") },
                    "\(variant)")
        }
        let rounded = try #require(first.sources.first { $0.identifier == "rounded.png" }?.variants.first)
        #expect(["avif", "webp"].contains(rounded.format), "transparency stays in a format with alpha: \(rounded.format)")
        #expect(variants.allSatisfy { ["avif", "heic", "webp", "jpeg"].contains($0.format) })

        // An iOS 16 device finds every image with the formats the runtime says it decodes, the
        // lookup's default there; a hard-coded [.webp, .jpeg] misses the AVIFs.
        let bundle = try CacheBundle(contentsOf: bundleURL)
        let iOS16 = FormatSupport.decodedFormats(on: .ios, version: "16.0")
        for source in ["coffee.jpg", "chelsea.jpg", "rounded.png"] {
            #expect(try bundle.bestImage(for: source, size: PointSize(width: 160, height: 0), scale: 1,
                                         accepting: iOS16) != nil, "\(source)")
        }
        #expect(try ["coffee.jpg", "chelsea.jpg"].contains { source in
            try bundle.bestImage(for: source, size: PointSize(width: 160, height: 0), scale: 1, accepting: [.webp, .jpeg]) == nil
        })

        // The payload counts each file once, and agrees with the files on disk.
        let payload = try #require(first.payload)
        let listing = try BundleInspector(bundleURL: bundleURL).listing()
        var files: [String: Int] = [:]
        for variant in listing.sources.flatMap(\.variants) { files[variant.blob] = variant.bytes }
        #expect(payload.bytes == files.values.reduce(0, +) && payload.files == files.count)
        #expect(Set(payload.byPreset.map(\.name)) == ["card", "thumb"])
        #expect(payload.byFormat.map(\.bytes).reduce(0, +) == payload.bytes)
        #expect(listing.sources.flatMap(\.variants).allSatisfy { $0.encoderQuality != nil && $0.qualityScore != nil })

        // A re-warm searches nothing: the settings found are remembered with the render.
        let second = try await Warm.run(manifest, options: options).published()
        #expect(second.totals.variantsEncoded == 0)
        #expect(second.sources.flatMap(\.variants) .map(\.qualityScore) == variants.map(\.qualityScore))
        #expect(second.payload == payload)

        // A higher target over a budget the current bundle fits: refused, nothing published or left.
        try scratch.write(Self.manifest(target: 92), to: "manifest.yml")
        let before = snapshot(of: bundleURL)
        var capped = options
        capped.budget = payload.bytes + 1
        let refused = try #require(try await Warm.run(manifest, options: capped).failure)
        #expect(refused.kind == .overBudget)
        #expect(refused.message.contains("over its budget of") && refused.message.contains("largest presets: card"),
                "\(refused.message)")
        #expect(refused.message.contains("largest sources: "), "\(refused.message)")
        #expect((refused.report?.payload?.bytes ?? 0) > payload.bytes + 1)
        #expect(snapshot(of: bundleURL) == before, "the previous bundle and nothing else")
    }
}

/// The command line: the bundle's weight in the summary and in `inspect`, and exit 7 over a budget.
@Suite struct PayloadCommandTests {
    @Test func summaryInspectAndBudget() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        try PayloadTests.files(in: scratch)
        try scratch.write(PayloadTests.manifest(target: 75), to: "manifest.yml")
        // The smallest memory limit there is: one imaging process, one source at a time.
        let warm = try await CLI.run(["warm", "manifest.yml", "--cache-dir", "cache", "--memory-limit", "184MiB"],
                                     in: scratch.url)
        #expect(warm.status == 0, "\(warm)")
        #expect(warm.stdout.contains("  bundle:   ") && warm.stdout.contains(" files ("), "\(warm)")
        #expect(warm.stdout.contains("by preset: card "), "\(warm)")

        let list = try await CLI.run(["inspect", "Out/Images.warmcache", "--list"], in: scratch.url)
        #expect(list.status == 0 && list.stdout.contains("of target 75)"), "\(list)")

        try scratch.write(PayloadTests.manifest(target: 90), to: "manifest.yml")
        let capped = try await CLI.run(["warm", "manifest.yml", "--cache-dir", "cache", "--budget", "1KB"], in: scratch.url)
        #expect(capped.status == 7, "\(capped)")
        #expect(capped.stderr.contains("over its budget of 1.0 KB, so nothing was published"), "\(capped)")
        let bad = try await CLI.run(["warm", "manifest.yml", "--budget", "lots"], in: scratch.url)
        #expect(bad.status == 64 && bad.stderr.contains("--budget 'lots' is not a size"), "\(bad)")
        let noLimit = try await CLI.run(["warm", "manifest.yml", "--memory-limit", "lots"], in: scratch.url)
        #expect(noLimit.status == 64 && noLimit.stderr.contains("--memory-limit 'lots' is not a size"), "\(noLimit)")
        let tiny = try await CLI.run(["warm", "manifest.yml", "--memory-limit", "100MB"], in: scratch.url)
        #expect(tiny.status == 64 && tiny.stderr.contains("--memory-limit 100MB is too small"), "\(tiny)")
        #expect(tiny.stderr.contains("give at least 184MiB"), "\(tiny)")
    }

    /// The budget covers the index too, is exact (equal fits, a byte less does not, and the
    /// message tells the two apart), may be 0, and its advice fits the manifest.
    @Test func theBudgetIsExact() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        try PayloadTests.files(in: scratch)
        try scratch.write(PayloadTests.manifest(target: 75), to: "manifest.yml")
        let warm = ["warm", "manifest.yml", "--cache-dir", "cache"]
        let first = try await CLI.run(warm, in: scratch.url)
        try #require(first.status == 0, "\(first)")
        let bundle = scratch.path("Out/Images.warmcache")
        let payload = try BundleInspector(bundleURL: bundle).listing().sources.flatMap(\.variants)
        let blobBytes = Dictionary(payload.map { ($0.blob, $0.bytes) }, uniquingKeysWith: { a, _ in a }).values.reduce(0, +)
        let indexBytes = try #require(ObjectStore.fileSize(bundle.appendingPathComponent("index.sqlite")))
        let total = blobBytes + indexBytes

        let equal = try await CLI.run(warm + ["--budget", "\(total)"], in: scratch.url)
        #expect(equal.status == 0 && equal.stdout.contains("+ index ") && equal.stdout.contains(" budget"), "\(equal)")
        let under = try await CLI.run(warm + ["--budget", "\(total - 1)"], in: scratch.url)
        #expect(under.status == 7, "\(under)")
        // Rounded, both are the same size: the message gives both in bytes.
        let (size, limit) = BudgetExceeded.distinct(total, total - 1)
        if ByteCountText.format(total) == ByteCountText.format(total - 1) {
            #expect(size.hasSuffix(" bytes") && limit.hasSuffix(" bytes") && size != limit, "\(size) \(limit)")
        }
        #expect(under.stderr.contains("would take \(size)") && under.stderr.contains("index), over its budget of \(limit)"),
                "\(under)")
        // The manifest uses formats: [smallest] and a quality_target already.
        #expect(under.stderr.contains("Lower quality_target") && !under.stderr.contains("use formats: [smallest]"),
                "\(under)")
        let zero = try await CLI.run(warm + ["--budget", "0"], in: scratch.url)
        #expect(zero.status == 7 && zero.stderr.contains("over its budget of 0 B"), "\(zero)")

        #expect(BudgetExceeded.advice(usesSmallest: false, usesQualityTarget: false)
                    == "Set a quality_target (or lower the fixed qualities), use formats: [smallest], drop sizes or scales, "
                    + "or raise 'budget'.")
    }
}
