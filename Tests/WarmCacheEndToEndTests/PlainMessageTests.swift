import Foundation
import Testing
import WarmCache
import WarmCacheBuilder
import WarmCacheTestSupport

/// What the command line says, line by line, at the edges of a run: one summary line, the right
/// verb and number, a reason wherever something was not done, and nothing left behind.
@Suite struct PlainMessageTests {
    private static func images(_ count: Int) throws -> [String: FixtureRoute] {
        var routes: [String: FixtureRoute] = [:]
        for (index, image) in try SourceImages.distinct(count).enumerated() {
            routes["/\(index).jpg"] = .image(image.bytes, contentType: image.contentType)
        }
        return routes
    }

    @Test func aReWarmThatChangesNothingSaysSoInsteadOfWrote() async throws {
        try await withWorld(routes: try Self.images(1)) { scratch, server in
            try scratch.write(Manifests.yaml(urls: [server.url("/0.jpg")]), to: "manifest.yml")
            let first = try await CLI.run(["warm", "manifest.yml", "--cache-dir", "cache"], in: scratch.url)
            #expect(first.status == 0 && first.stdout.contains("Created Out/Images.warmcache in "), "\(first)")
            let second = try await CLI.run(["warm", "manifest.yml", "--cache-dir", "cache"], in: scratch.url)
            #expect(second.status == 0, "\(second)")
            #expect(second.stdout.contains("Checked Out/Images.warmcache, unchanged, in "), "\(second)")
            #expect(!second.stdout.contains("Wrote Out/Images.warmcache"), "\(second)")
        }
    }

    @Test func aStrictFailureSaysWhyOnItsPageAndLeavesNoEmptyFolder() async throws {
        var routes = try Self.images(1)
        routes["/gone.jpg"] = .status(404)
        try await withWorld(routes: routes) { scratch, server in
            try scratch.write(Manifests.yaml(output: "Build/Images.warmcache",
                                             urls: [server.url("/0.jpg"), server.url("/gone.jpg")]), to: "manifest.yml")
            let strict = try await CLI.run(["warm", "manifest.yml", "--cache-dir", "cache", "--strict",
                                            "--html", "sheet.html"], in: scratch.url)
            #expect(strict.status == 4, "\(strict)")
            #expect(!FileManager.default.fileExists(atPath: scratch.path("Build").path),
                    "--strict left \(scratch.path("Build").path) behind")
            let page = try String(contentsOf: scratch.path("sheet.html"), encoding: .utf8)
            #expect(page.contains("\"whyNoBundle\":\"1 of 2 sources failed and --strict is set"), "\(page.prefix(2000))")
            // One summary line: the run's own, not a count line before it.
            let summaries = strict.stderr.split(separator: "\n").filter { $0.contains("sources failed") }
            #expect(summaries.count == 1, "\(strict.stderr)")
        }
    }

    @Test func allSourcesFailingPrintsOneSummaryLine() async throws {
        let routes: [String: FixtureRoute] = ["/a.jpg": .status(404), "/b.jpg": .status(410)]
        try await withWorld(routes: routes) { scratch, server in
            try scratch.write(Manifests.yaml(urls: [server.url("/a.jpg"), server.url("/b.jpg")]), to: "manifest.yml")
            let warm = try await CLI.run(["warm", "manifest.yml", "--cache-dir", "cache"], in: scratch.url)
            #expect(warm.status == 4, "\(warm)")
            let lines = warm.stderr.split(separator: "\n")
            #expect(lines.filter { $0.contains("sources failed") }.count == 1, "\(warm.stderr)")
            #expect(lines.filter { $0.contains("/a.jpg") || $0.contains("/b.jpg") }.count == 2, "\(warm.stderr)")
        }
    }

    @Test func mergingOnePartSaysPartAndAnUnknownPresetIsNamed() async throws {
        try await withWorld(routes: try Self.images(1)) { scratch, server in
            let url = server.url("/0.jpg")
            try scratch.write(Manifests.yaml(urls: [url]), to: "manifest.yml")
            let part = try await CLI.run(["warm", "manifest.yml", "--shard", "1/1", "-q", "-o", "parts/p1.warmcache",
                                          "--cache-dir", "cache"], in: scratch.url)
            #expect(part.status == 0, "\(part)")
            let merge = try await CLI.run(["merge", "-o", "Out/Images.warmcache", "parts/p1.warmcache"], in: scratch.url)
            #expect(merge.status == 0 && merge.stdout.contains("Merged 1 part into"), "\(merge)")

            let lookup = try await CLI.run(["lookup", "Out/Images.warmcache", url.absoluteString, "--size", "64x64",
                                            "--preset", "thum"], in: scratch.url)
            #expect(lookup.status == 2, "\(lookup)")
            #expect(lookup.stderr.contains("the bundle has no preset 'thum' (did you mean 'thumb'?); its presets are "
                                           + "card, thumb"), "\(lookup)")
            #expect(!lookup.stderr.contains("excluded all its variants"), "\(lookup)")
        }
    }
}
