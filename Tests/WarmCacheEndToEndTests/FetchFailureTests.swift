import Foundation
import Testing
import WarmCache
import WarmCacheBuilder
import WarmCacheTestSupport

/// Sources whose servers misbehave. Transient failures that clear up (500 then 200, 429
/// with Retry-After) still give the image; the rest (404, persistent 500, a timeout, a body cut
/// mid-way, an HTML page served with 200) fail with a reason naming the URL, and by default the
/// bundle is published with every source that worked (status `partial`).
@Suite struct FetchFailureTests {
    @Test func failedSourcesAreReportedAndTheOthersArePublished() async throws {
        let images = try SourceImages.distinct(6)
        func image(_ index: Int) -> FixtureRoute {
            .image(images[index].bytes, contentType: images[index].contentType, etag: "\"e\(index)\"")
        }
        let routes: [String: FixtureRoute] = [
            "/ok/0.jpg": image(0),
            "/ok/1.png": image(1),
            "/flaky.jpg": .failing(times: 1, status: 500, then: image(2)),
            "/busy.png": .sequence([.tooManyRequests(retryAfter: "1"), image(3)]),
            "/broken.jpg": .status(500, body: "internal error"),
            // The head at once (the host answers), then 100 bytes a second: far past any time limit.
            "/slow.jpg": .trickled(chunkSize: 100, interval: 1, image(4)),
            "/cut.png": .truncated(afterBytes: 100, image(5)),
            "/page.jpg": .html(),
            // "/missing.jpg" has no route: 404
        ]
        try await withWorld(routes: routes) { scratch, server in
            let good = ["/ok/0.jpg", "/ok/1.png", "/flaky.jpg", "/busy.png"]
            let goodSizes = [images[0], images[1], images[2], images[3]].map(\.pixelSize)
            let bad = ["/missing.jpg", "/broken.jpg", "/cut.png", "/page.jpg"]
            // No time limit that a busy machine could reach: every route here answers at once,
            // and a limit short enough for the slow route once held a fast one past it (its retry
            // broke the request counts). The slow route times out in a run of its own below.
            let urls = (good + bad).map { server.url($0) }
            let manifest = try scratch.write(Manifests.yaml(urls: urls), to: "manifest.yml")

            let report = try await Warm.run(manifest, options: Warm.options(cache: scratch.path("cache"))).published()

            #expect(report.status == .partial)
            #expect(report.totals.sources == good.count + bad.count)
            #expect(report.totals.sourcesOK == good.count)
            #expect(report.totals.sourcesFailed == bad.count)
            #expect(Set(report.failures.map(\.identifier)) == Set(bad.map { server.url($0).absoluteString }))

            // The timeout, alone: whatever else the machine does, only this route can reach it.
            let slowFetch = "fetch:\n  timeout: 2s\n  connect_timeout: 30s\n  retries: 1\n  retry_delay: 10ms"
            let slowManifest = try scratch.write(Manifests.yaml(output: "Slow/Images.warmcache",
                                                                urls: [server.url("/slow.jpg")], fetch: slowFetch),
                                                 to: "slow.yml")
            let slowRun = try await Warm.run(slowManifest, options: Warm.options(cache: scratch.path("cache")))
            let slowReport = try #require(slowRun.failure?.report, "the slow route did not fail the run")

            // Every failure names its URL, says what happened, and where the manifest lists it.
            let reasons: [String: String] = [
                "/missing.jpg": "HTTP 404", "/broken.jpg": "HTTP 500", "/slow.jpg": "timed out",
                "/cut.png": "connection ended after 100 of \(images[5].bytes.count) bytes", "/page.jpg": "HTML page",
            ]
            let kinds: [String: SourceFailure.Kind] = [
                "/missing.jpg": .httpStatus, "/broken.jpg": .httpStatus, "/slow.jpg": .timeout,
                "/cut.png": .connection, "/page.jpg": .notAnImage,
            ]
            let statuses: [String: Int] = ["/missing.jpg": 404, "/broken.jpg": 500]
            for (path, report, manifest) in bad.map({ ($0, report, manifest) }) + [("/slow.jpg", slowReport, slowManifest)] {
                let url = server.url(path)
                let source = try #require(report.source(url), "\(path) missing from the report")
                #expect(source.status == .failed)
                #expect(source.variants.isEmpty)
                let failure = try #require(source.failure, "\(path) has no failure")
                #expect(source.location == url.absoluteString)
                #expect(failure.kind == kinds[path], "\(path): \(failure)")
                #expect(failure.httpStatus == statuses[path], "\(path): \(failure)")
                #expect(failure.message.contains(reasons[path]!), "\(path): \(failure)")
                #expect(!failure.message.contains(url.absoluteString), "the URL is named once, by location: \(failure)")
                #expect(source.listedAt.hasPrefix(manifest.path + ":"), "\(source.listedAt)")
            }
            // Retried once (retries: 1), not more; the 404 and the HTML page are not retried.
            #expect(server.requestCount(for: "/broken.jpg") == 2)
            #expect(server.requestCount(for: "/cut.png") == 2)
            #expect(server.requestCount(for: "/missing.jpg") == 1)
            #expect(server.requestCount(for: "/page.jpg") == 1)

            // 500 then 200, and 429 then 200: fetched on the second attempt, 429 only after Retry-After.
            #expect(server.requestCount(for: "/flaky.jpg") == 2)
            let busy = server.requests(for: "/busy.png")
            #expect(busy.count == 2)
            if busy.count == 2 {
                #expect(busy[1].receivedAt.timeIntervalSince(busy[0].receivedAt) >= 0.9, "Retry-After: 1 not honoured")
            }
            for path in good {
                #expect(report.source(server.url(path))?.status == .fetched, "\(path)")
            }

            let bundleURL = scratch.path("Out/Images.warmcache")
            #expect(try BundleVerifier(bundleURL: bundleURL).verify().isValid)
            let bundle = try CacheBundle(contentsOf: bundleURL)
            #expect(bundle.info.sourceCount == good.count)
            for (path, size) in zip(good, goodSizes) {
                try BundleChecks.checkVariants(in: bundle, source: SourceIdentifier(server.url(path).absoluteString),
                                               sourceSize: size, expectedCount: Manifests.variantsPerSource)
            }
            for path in bad {
                #expect(try !bundle.contains(SourceIdentifier(server.url(path).absoluteString)), "\(path)")
            }
        }
    }

    /// A refused connection is answered by the kernel at once: it fails on its one connection
    /// attempt, not after the pool has tried again and again until the connect timeout (60 s
    /// here, so a regression would show as dozens of attempts). Counted in the HTTP stack's own
    /// debug line for each failed connection attempt (`-v`), not timed.
    @Test func aRefusedConnectionIsTriedOnceNotUntilTheConnectTimeout() async throws {
        let image = try SourceImages.distinct(1)[0]
        try await withWorld(routes: ["/ok.jpg": .image(image.bytes, contentType: image.contentType)]) { scratch, server in
            let closed = try ClosedPort()
            let refused = closed.url("/gone.jpg")
            let fetch = "fetch:\n  timeout: 300s\n  connect_timeout: 60s\n  retries: 3\n  retry_delay: 10ms"
            try scratch.write(Manifests.yaml(urls: [server.url("/ok.jpg"), refused], fetch: fetch), to: "manifest.yml")
            let run = try await CLI.run(["warm", "manifest.yml", "--cache-dir", "cache", "-v", "--report", "r.json"],
                                        in: scratch.url)
            #expect(run.status == 3, "\(run)")
            let failed = run.stderr.split(separator: "\n").filter { $0.hasPrefix("error: \(refused.absoluteString): ") }
            #expect(failed.count == 1 && failed.first?.contains("connection refused") == true, "\(run.stderr)")
            let connectionAttempts = run.stderr.components(separatedBy: "connection attempt failed").count - 1
            #expect(connectionAttempts == 1, "\(connectionAttempts) connection attempts:\n\(run.stderr)")

            let report = try JSONDecoder().decode(WarmReport.self, from: Data(contentsOf: scratch.path("r.json")))
            let source = try #require(report.source(refused))
            #expect(source.failure?.kind == .connection && source.failure?.attempts == 1, "\(String(describing: source.failure))")
            #expect(report.source(server.url("/ok.jpg"))?.status == .fetched)
            withExtendedLifetime(closed) {}
        }
    }
}
