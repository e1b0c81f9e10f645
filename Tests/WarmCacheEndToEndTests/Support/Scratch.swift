import Foundation
import WarmCacheTestSupport

/// A unique, empty directory for one test, removed afterwards.
struct Scratch: Sendable {
    let url: URL

    init(_ label: String = "test") throws {
        let safe = label.map { $0.isLetter || $0.isNumber ? $0 : "-" }
        url = FileManager.default.temporaryDirectory
            .appendingPathComponent("warmcache-e2e-\(String(safe.prefix(40)))-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    /// `relative` inside the scratch directory.
    func path(_ relative: String) -> URL {
        url.appendingPathComponent(relative)
    }

    /// Writes `text` to `relative` (creating directories) and returns its URL.
    @discardableResult
    func write(_ text: String, to relative: String) throws -> URL {
        let file = path(relative)
        try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data(text.utf8).write(to: file)
        return file
    }

    func remove() {
        try? FileManager.default.removeItem(at: url)
    }
}

/// Runs `body` with a fresh scratch directory and a fixture server on loopback, and tears both
/// down afterwards whether `body` throws or not.
func withWorld<T>(_ label: String = #function, routes: [String: FixtureRoute] = [:],
                  _ body: (Scratch, FixtureServer) async throws -> T) async throws -> T {
    let scratch = try Scratch(label)
    let server = try await FixtureServer.start(routes: routes)
    do {
        let result = try await body(scratch, server)
        try? await server.shutdown()
        scratch.remove()
        return result
    } catch {
        try? await server.shutdown()
        scratch.remove()
        throw error
    }
}

/// Polls `condition` every 10 ms until it holds or `seconds` pass; returns whether it held.
func eventually(within seconds: Double = 30, _ condition: () -> Bool) async -> Bool {
    let deadline = Date().addingTimeInterval(seconds)
    while Date() < deadline {
        if condition() { return true }
        try? await Task.sleep(nanoseconds: 10_000_000)
    }
    return condition()
}

extension Scratch {
    /// Warms the manifest of `urls` at `quality` into `pub/Images.warmcache` (the release a
    /// test serves as static files), with the originals cached in `cache`.
    func publishRelease(of urls: [URL], quality: Int) async throws {
        let defaults = "defaults:\n  quality: { jpeg: \(quality), webp: \(quality) }"
        try write(Manifests.yaml(output: "pub/Images.warmcache", urls: urls, defaults: defaults), to: "manifest.yml")
        let warm = try await CLI.run(["warm", "manifest.yml", "--cache-dir", "cache", "-q"], in: url)
        guard warm.status == 0 else { throw PublishingFailed(result: warm) }
    }
}

extension Scratch {
    /// A first release of the `count` images `server` serves under `/p/`, published with
    /// ``publishRelease(of:quality:)`` and served back as static files at `/pub/Images.warmcache/`.
    func serveRelease(of count: Int, on server: FixtureServer, quality: Int = 60) async throws
        -> (urls: [URL], folder: URL, url: URL) {
        let urls = (0..<count).map { server.url("/p/\($0)") }
        let folder = path("pub/Images.warmcache")
        try await publishRelease(of: urls, quality: quality)
        server.setRoute("/pub/Images.warmcache/", .directory(folder))
        return (urls, folder, server.url("/pub/Images.warmcache/"))
    }
}

/// The warm that publishes a test's release failed.
struct PublishingFailed: Error, CustomStringConvertible {
    var result: CLI.Result
    var description: String { "publishing the release failed: \(result)" }
}
