import Foundation
import Testing
import WarmCacheTestSupport

/// Small things a user notices: counts in plain English.
@Suite struct RoughEdgesTests {
    @Test func countsOfOneAreSingular() async throws {
        var routes = SourceImages.routes(try SourceImages.distinct(1), under: "s")
        routes["/gone.jpg"] = .status(404, body: "Not Found")
        try await withWorld(routes: routes) { scratch, server in
            try scratch.write(Manifests.yaml(urls: [server.url("/gone.jpg")]), to: "manifest.yml")
            let failed = try await CLI.run(["warm", "manifest.yml", "--cache-dir", "cache"], in: scratch.url)
            #expect(failed.status == 4 && failed.stderr.contains("the only source failed: nothing was written"),
                    "\(failed)")
            #expect(failed.output.range(of: #"(^|[^/\d])1 sources"#, options: .regularExpression) == nil, "\(failed)")

            try scratch.write(Manifests.yaml(urls: [server.url("/s/0")], presets: ["thumb"]), to: "manifest.yml")
            let warm = try await CLI.run(["warm", "manifest.yml", "--cache-dir", "cache", "-q"], in: scratch.url)
            #expect(warm.status == 0, "\(warm)")
            let inspected = try await CLI.run(["inspect", "Out/Images.warmcache"], in: scratch.url)
            #expect(inspected.stdout.contains("  1 source (") && !inspected.stdout.contains("1 sources"), "\(inspected)")
            let plan = try await CLI.run(["plan", "manifest.yml"], in: scratch.url)
            #expect(plan.stdout.contains("1 source (") && !plan.stdout.contains("1 sources"), "\(plan)")
        }
    }
}

extension RoughEdgesTests {
    /// Counts are singular for one everywhere: inspect's columns, verify's damaged blob, the
    /// progress line; no "(s)".
    @Test func inspectAndVerifyCountOneInTheSingular() async throws {
        let image = try SourceImages.distinct(1)[0]
        try await withWorld(routes: ["/a.jpg": .image(image.bytes, contentType: image.contentType)]) { scratch, server in
            try scratch.write(Manifests.yaml(urls: [server.url("/a.jpg")], presets: ["thumb"]), to: "manifest.yml")
            let warm = try await CLI.run(["warm", "manifest.yml", "--cache-dir", "cache", "-q"], in: scratch.url)
            try #require(warm.status == 0, "\(warm)")
            let inspected = try await CLI.run(["inspect", "Out/Images.warmcache"], in: scratch.url)
            #expect(inspected.stdout.contains("    1 variant      1 file "), "\(inspected)")
            #expect(inspected.stdout.contains("    2 variants     2 files"), "\(inspected)")
            #expect(inspected.stdout.range(of: #"\b1 (variants|files)\b"#, options: .regularExpression) == nil, "\(inspected)")

            let objects = scratch.path("Out/Images.warmcache/objects")
            let blob = try #require(try FileManager.default.subpathsOfDirectory(atPath: objects.path)
                .first { $0.hasSuffix(".webp") })
            try Data("damaged".utf8).write(to: objects.appendingPathComponent(blob))
            let verified = try await CLI.run(["verify", "Out/Images.warmcache"], in: scratch.url)
            #expect(verified.status == 2, "\(verified)")
            #expect(verified.stderr.contains("used by 1 variant of source \(server.url("/a.jpg").absoluteString)"),
                    "\(verified)")
            #expect(!verified.output.contains("(s)"), "\(verified)")
        }
    }

    /// The first warm of a bundle says it created it; `sign --expires` takes years and months and
    /// names its units when it cannot read one; `sign --help` offers only what sign does.
    @Test func createdBundlesSigningDurationsAndHelpSayWhatTheyMean() async throws {
        let image = try SourceImages.distinct(1)[0]
        try await withWorld(routes: ["/a.jpg": .image(image.bytes, contentType: image.contentType)]) { scratch, server in
            try scratch.write(Manifests.yaml(urls: [server.url("/a.jpg")], presets: ["thumb"]), to: "manifest.yml")
            let warm = try await CLI.run(["warm", "manifest.yml", "--cache-dir", "cache"], in: scratch.url)
            #expect(warm.status == 0 && warm.stdout.contains("Created Out/Images.warmcache in "), "\(warm)")
            #expect(!warm.stdout.contains("unchanged"), "\(warm)")

            let keygen = try await CLI.run(["keygen", "images.key"], in: scratch.url)
            try #require(keygen.status == 0, "\(keygen)")
            let year = try await CLI.run(["sign", "Out/Images.warmcache", "--key", "images.key", "--expires", "1y"],
                                         in: scratch.url)
            #expect(year.status == 0, "\(year)")
            let inAYear = Calendar(identifier: .gregorian).component(.year, from: Date().addingTimeInterval(365 * 86_400))
            #expect(year.stdout.contains("expires \(inAYear)-"), "\(year)")
            let months = try await CLI.run(["sign", "Out/Images.warmcache", "--key", "images.key", "--expires", "6mo"],
                                           in: scratch.url)
            #expect(months.status == 0, "\(months)")
            let unknown = try await CLI.run(["sign", "Out/Images.warmcache", "--key", "images.key", "--expires", "1fortnight"],
                                            in: scratch.url)
            #expect(unknown.status == 64 && unknown.stderr.contains("mo (30 days) or y (365 days)"), "\(unknown)")

            let help = try await CLI.run(["sign", "--help"], in: scratch.url)
            #expect(help.status == 0 && help.stdout.contains("--quiet") && !help.stdout.contains("--verbose"), "\(help)")
            #expect(!help.stdout.contains("--version"), "\(help)")
            let warmHelp = try await CLI.run(["warm", "--help"], in: scratch.url)
            #expect(warmHelp.stdout.contains("--verbose"), "\(warmHelp)")
        }
    }

    /// A truncated original is said in plain words, with its path, not in libvips' words.
    @Test func aTruncatedFileIsCalledTruncated() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let image = try SourceImages.distinct(1)[0]
        try Data(image.bytes.prefix(image.bytes.count / 2)).write(to: scratch.path("cut.jpg"))
        let manifest = "version: 1\noutput: Out/Images.warmcache\n" + Manifests.presets
            + "\nimages:\n  - path: cut.jpg\n    presets: [thumb]\n"
        try scratch.write(manifest, to: "manifest.yml")
        let run = try await CLI.run(["warm", "manifest.yml", "--cache-dir", "cache", "-q"], in: scratch.url)
        #expect(run.status == 4, "\(run)")
        let line = run.stderr.split(separator: "\n").first { $0.contains("cut.jpg: ") }
        #expect(line?.contains("the file is truncated") == true, "\(run)")
        #expect(line?.hasPrefix("error: /") == true, "the absolute path first: \(run)")
        #expect(!run.stderr.contains("libvips") && !run.stderr.contains("Premature"), "\(run)")
    }
}

extension CLI.Result {
    /// Standard output and standard error together.
    var output: String { stdout + stderr }
}
