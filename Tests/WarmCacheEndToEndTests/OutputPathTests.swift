import Foundation
import Testing
import WarmCacheTestSupport

/// Every path `warm` writes (`-o`, `--cache-dir`, `--report`, `--html`) is checked before any
/// download, and a page that cannot be written at the end never hides the run's own failures
/// or exit code.
@Suite struct OutputPathTests {
    private func errorLines(_ run: CLI.Result) -> [String] {
        run.stderr.split(separator: "\n").map(String.init).filter { $0.hasPrefix("error: ") }
    }

    @Test func unwritablePathsFailBeforeAnyDownloadInOneLine() async throws {
        let image = try SourceImages.distinct(1)[0]
        try await withWorld(routes: ["/a.jpg": .image(image.bytes, contentType: image.contentType)]) { scratch, server in
            try scratch.write(Manifests.yaml(urls: [server.url("/a.jpg")]), to: "manifest.yml")
            try scratch.write("a file, not a folder", to: "f")
            try scratch.write("a file, not a bundle", to: "g.warmcache")
            let base = ["warm", "manifest.yml", "--cache-dir", "cache"]
            let cases: [(arguments: [String], says: String)] = [
                (["-o", "f/notdir/x.warmcache"], "f is a file, not a folder"),
                (["--report", "f/report.json"], "f is a file, not a folder"),
                (["--html", "f/sheet.html"], "f is a file, not a folder"),
                (["--cache-dir", "f/cache"], "f is a file, not a folder"),
                (["-o", "g.warmcache"], "it is not a WarmCache bundle (it is a file)"),
            ]
            for (arguments, says) in cases {
                let run = try await CLI.run(base + arguments, in: scratch.url)
                #expect(run.status == 1 || run.status == 64, "\(arguments): \(run)")
                #expect(errorLines(run).count == 1 && run.stderr.contains(says), "\(arguments): \(run)")
                for leak in ["Domain", "NSCocoaErrorDomain", "previous bundle is unchanged"] {
                    #expect(!run.stderr.contains(leak), "\(arguments): \(run)")
                }
            }
            #expect(server.totalRequestCount == 0, "a download started before the paths were checked")
            #expect(!FileManager.default.fileExists(atPath: scratch.path("Out").path))
        }
    }

    @Test func aPageThatCannotBeWrittenLateKeepsTheRunsFailuresAndExitCode() async throws {
        let image = try SourceImages.distinct(1)[0]
        let gate = FixtureGate()
        let routes: [String: FixtureRoute] = [
            "/good.jpg": .held(gate, .image(image.bytes, contentType: image.contentType)),
            "/gone.jpg": .status(404),
        ]
        try await withWorld(routes: routes) { scratch, server in
            try scratch.write(Manifests.yaml(urls: [server.url("/good.jpg"), server.url("/gone.jpg")]), to: "manifest.yml")
            let running = try CLI.start(["warm", "manifest.yml", "--cache-dir", "cache", "--html", "late/sheet.html",
                                         "--report", "late/report.json"], in: scratch.url)
            let waiting = await eventually(within: 120) { server.requestCount(for: "/good.jpg") >= 1 }
            try #require(waiting, "the held request never arrived")
            // Where the page and the report go becomes a file while the run works.
            try scratch.write("in the way", to: "late")
            gate.open()
            let run = try await running.wait()
            #expect(run.status == 3, "the run's own exit code: \(run)")
            #expect(run.stderr.contains("/gone.jpg") && run.stderr.contains("1 of 2 sources failed"), "\(run)")
            #expect(run.stderr.contains("cannot write the report"), "\(run)")
            #expect(run.stderr.contains("sheet.html"), "\(run)")
            #expect(run.stdout.contains("Created Out/Images.warmcache"), "the summary: \(run)")
            #expect(!run.stderr.contains("Domain"), "\(run)")
        }
    }
}
