import Foundation
import Testing
import WarmCache
import WarmCacheBuilder
import WarmCacheTestSupport

/// `warm-cache pull`, run as the built executable against a loopback server.
@Suite("warm-cache pull")
struct PullCommandTests {
    /// The built `warm-cache` beside the test runner (SwiftPM's products directory), if any.
    static let executable: URL? = {
        var directory = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
            .deletingLastPathComponent()
        for _ in 0..<4 {
            let candidate = directory.appendingPathComponent("warm-cache")
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
            directory = directory.deletingLastPathComponent()
        }
        return nil
    }()

    /// Runs `warm-cache pull arguments`, waiting off the cooperative pool so tests beside it keep running.
    func pull(_ arguments: [String]) async throws -> (status: Int32, output: String) {
        let executable = try #require(Self.executable, "build warm-cache first (swift build --build-tests)")
        return try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global().async {
                continuation.resume(with: Swift.Result { try Self.pullBlocking(executable, arguments) })
            }
        }
    }

    /// Runs `warm-cache pull arguments` on the calling thread; output goes through files (no pipe can fill up).
    static func pullBlocking(_ executable: URL, _ arguments: [String]) throws -> (status: Int32, output: String) {
        let log = FileManager.default.temporaryDirectory.appendingPathComponent("wc-pull-\(UUID().uuidString).log")
        FileManager.default.createFile(atPath: log.path, contents: nil)
        let handle = try FileHandle(forWritingTo: log)
        let process = Process()
        process.executableURL = executable
        process.arguments = ["pull"] + arguments
        process.standardOutput = handle
        process.standardError = handle
        try process.run()
        process.waitUntilExit()
        try handle.close()
        return (process.terminationStatus, try String(contentsOf: log, encoding: .utf8))
    }

    @Test("pulls, reports what it downloaded, is up to date the second time, and exits 5 on a bad source")
    func pullCommand() async throws {
        var published = try PublishedBundle(sources: 5)
        let server = try await FixtureServer.start()
        try published.serve(on: server)
        let base = server.url("/pub/Images.warmcache/").absoluteString
        let local = temporaryUpdateDirectory().path

        let first = try await pull([base, local])
        #expect(first.status == 0, "\(first.output)")
        #expect(first.output.contains("updated") && first.output.contains("10 blobs"))
        let second = try await pull([base, local])
        #expect(second.status == 0 && second.output.contains("up to date"), "\(second.output)")

        try published.change([2])
        try published.serve(on: server)
        let broken = try #require(published.variants(of: 2).first)
        server.setRoute(published.blobPath(of: broken), .status(404))
        let failed = try await pull([base, local])
        #expect(failed.status == 5, "\(failed.output)")
        #expect(failed.output.contains("HTTP 404") && failed.output.contains("unchanged"))
        #expect(try CacheBundle(contentsOf: URL(fileURLWithPath: local)).contains(PublishedBundle.source(2)))
        try await server.shutdown()
    }
}
