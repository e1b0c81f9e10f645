import Foundation
import Testing
import WarmCache
import WarmCacheBuilder
import WarmCacheTestSupport

/// A manifest warmed again, unchanged, encodes nothing, whatever ran in between with the same
/// cache directory: a warm of another manifest of the same images (an app and its widget), a run
/// of a changed manifest that published nothing (over budget), or one stopped by Ctrl-C. (After
/// `kill -9`: ``KillNineTests``.) Real `warm-cache` processes; the counts are the JSON report's.
@Suite struct RewarmAfterOtherRunsTests {
    static let count = 3
    /// Variants per source with the `thumb` preset (WebP and JPEG).
    static let variantsPerSource = 2

    /// The app's manifest: `thumb` of each URL, into `Out/App.warmcache`, at `quality`.
    static func app(_ urls: [URL], quality: Int = 80) -> String {
        Manifests.yaml(output: "Out/App.warmcache", urls: urls, presets: ["thumb"],
                       defaults: "defaults:\n  quality: { jpeg: \(quality), webp: \(quality) }")
    }

    /// Runs `warm manifest` in `scratch` with the default cache directory (beside the manifests,
    /// shared by every manifest there) and `extra` arguments; its exit status and JSON report.
    static func warm(_ manifest: String, in scratch: Scratch, _ extra: [String] = [])
        async throws -> (result: CLI.Result, report: WarmReport) {
        let reportURL = scratch.path("report-\(UUID().uuidString).json")
        defer { try? FileManager.default.removeItem(at: reportURL) }
        let result = try await CLI.run(["warm", manifest, "-q", "--report", reportURL.path] + extra, in: scratch.url)
        let report = try JSONDecoder().decode(WarmReport.self, from: Data(contentsOf: reportURL))
        return (result, report)
    }

    /// Warms the app's manifest and expects it to publish, encoding `encoded` variants.
    static func warmApp(in scratch: Scratch, encoded: Int, _ context: String) async throws {
        let (result, report) = try await warm("app.yml", in: scratch)
        try #require(result.status == 0, "\(context): \(result)")
        #expect(report.totals.variantsEncoded == encoded, "\(context): \(report.totals)")
        #expect(report.totals.variantsReused == count * variantsPerSource - encoded, "\(context): \(report.totals)")
    }

    @Test func anotherManifestOfTheSameImagesWithTheSameCache() async throws {
        let routes = SourceImages.routes(try SourceImages.distinct(Self.count), under: "a")
        try await withWorld(routes: routes) { scratch, server in
            let urls = (0..<Self.count).map { server.url("/a/\($0)") }
            try scratch.write(Self.app(urls), to: "app.yml")
            let widgetPreset = "  widget: { width: 32, height: 32, fit: cover, formats: [webp, jpeg] }"
            try scratch.write(Manifests.yaml(output: "Out/Widget.warmcache", urls: urls, presets: ["widget"],
                                             extraPresets: widgetPreset), to: "widget.yml")
            try await Self.warmApp(in: scratch, encoded: Self.count * Self.variantsPerSource, "the app's first warm")
            let (widget, widgetReport) = try await Self.warm("widget.yml", in: scratch)
            try #require(widget.status == 0, "\(widget)")
            #expect(widgetReport.totals.variantsEncoded == Self.count * 2)

            try await Self.warmApp(in: scratch, encoded: 0, "the app again after the widget")
            let (again, againReport) = try await Self.warm("widget.yml", in: scratch)
            #expect(again.status == 0 && againReport.totals.variantsEncoded == 0, "the widget again: \(againReport.totals)")
        }
    }

    @Test func aChangedManifestOverBudgetInBetween() async throws {
        let routes = SourceImages.routes(try SourceImages.distinct(Self.count), under: "b")
        try await withWorld(routes: routes) { scratch, server in
            let urls = (0..<Self.count).map { server.url("/b/\($0)") }
            try scratch.write(Self.app(urls), to: "app.yml")
            try await Self.warmApp(in: scratch, encoded: Self.count * Self.variantsPerSource, "the first warm")

            // Another quality for every variant, into the same bundle, over its budget: every
            // variant is encoded anew, and nothing is published.
            try scratch.write(Self.app(urls, quality: 55), to: "changed.yml")
            let (over, overReport) = try await Self.warm("changed.yml", in: scratch, ["--budget", "1KB"])
            #expect(over.status == 7, "\(over)")
            #expect(overReport.totals.variantsEncoded == Self.count * Self.variantsPerSource)

            try await Self.warmApp(in: scratch, encoded: 0, "the unchanged manifest after a run over budget")
        }
    }

    @Test func aChangedManifestStoppedByCtrlCInBetween() async throws {
        let images = try SourceImages.distinct(Self.count + 1)
        let gate = FixtureGate()
        var routes = SourceImages.routes(images, under: "c")
        // The changed manifest's last source answers once the gate opens: the run is mid-way.
        routes["/c/\(Self.count)"] = .held(gate, routes["/c/\(Self.count)"]!)
        try await withWorld(routes: routes) { scratch, server in
            let urls = (0...Self.count).map { server.url("/c/\($0)") }
            try scratch.write(Self.app(Array(urls.prefix(Self.count))), to: "app.yml")
            try await Self.warmApp(in: scratch, encoded: Self.count * Self.variantsPerSource, "the first warm")
            let objects = scratch.path("Out/App.warmcache/objects")
            let published = Self.blobCount(objects)

            // Another quality, one more source: stopped once it has stored every new blob of
            // the first ones (and so remembered their renders).
            try scratch.write(Self.app(urls, quality: 55), to: "changed.yml")
            let running = try CLI.start(["warm", "changed.yml", "-q"], in: scratch.url)
            let midway = await eventually(within: 120) {
                Self.blobCount(objects) >= published + Self.count * Self.variantsPerSource
            }
            try #require(midway, "the changed manifest's run never stored its blobs")
            // Its renders are remembered just after their blobs are stored.
            try await Task.sleep(nanoseconds: 300_000_000)
            try #require(running.process.isRunning, "the run ended before it was interrupted")
            running.kill(SIGINT)
            let interrupted = try await running.wait()
            #expect(interrupted.signalled || interrupted.status != 0, "\(interrupted)")
            gate.open()

            try await Self.warmApp(in: scratch, encoded: 0, "the unchanged manifest after Ctrl-C")
        }
    }

    /// Blob files under `objects`.
    static func blobCount(_ objects: URL) -> Int {
        let fileManager = FileManager.default
        return ((try? fileManager.contentsOfDirectory(atPath: objects.path)) ?? []).reduce(0) { count, fanout in
            let folder = objects.appendingPathComponent(fanout).path
            return count + ((try? fileManager.contentsOfDirectory(atPath: folder))?.count ?? 0)
        }
    }
}
