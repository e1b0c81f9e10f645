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

extension CLI.Result {
    /// Standard output and standard error together.
    var output: String { stdout + stderr }
}
