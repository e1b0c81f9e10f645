import Foundation
import Logging
import Testing
import WarmCacheTestSupport

@testable import WarmCacheBuilder

/// Collects every log event, with its metadata, as text.
struct CapturingLogHandler: LogHandler {
    let sink: Locked<[String]>
    var metadata: Logger.Metadata = [:]
    var metadataProvider: Logger.MetadataProvider?
    var logLevel: Logger.Level = .trace

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        let merged = metadata.merging(event.metadata ?? [:]) { $1 }
        let fields = merged.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
        sink.withLock { $0.append("\(event.level) \(event.message) \(fields)") }
    }
}

@Suite("Fetch: logging")
struct FetchLoggingTests {
    @Test("Attempts, retries and statuses are logged at debug/trace, header values never")
    func logsWithoutSecrets() async throws {
        let secret = "Bearer l0gged-n3ver"
        let sink = Locked<[String]>([])
        let logger = Logger(label: "capture") { _ in CapturingLogHandler(sink: sink) }
        let server = try await FixtureServer.start(routes: [
            "/moved": .redirect(status: 302, location: "/flaky.png"),
            "/flaky.png": .failing(times: 1, status: 503, then: .image(FixtureBytes.fakePNG(count: 500))),
            "/missing": .status(404),
        ])
        let configuration = fastConfiguration(headers: [(name: "Authorization", value: secret)])
        let fetcher = ImageFetcher(settings: configuration, logger: logger)
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("warmcache-log-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }

        _ = try await fetcher.fetch(server.url("/moved"), to: directory.appendingPathComponent("a.png"))
        _ = try? await fetcher.fetch(server.url("/missing"), to: directory.appendingPathComponent("b.png"))
        try await fetcher.shutdown()
        try await server.shutdown()

        let lines = sink.withLock { $0 }
        #expect(lines.contains { $0.contains("Retrying") && $0.contains("httpStatus(503)") })
        #expect(lines.contains { $0.contains("HTTP 404") })
        #expect(lines.contains { $0.contains("Following redirect") })
        #expect(lines.contains { $0.hasPrefix("debug Download attempt 2") })
        #expect(!lines.contains { $0.contains("l0gged-n3ver") })
        #expect(!lines.contains { $0.hasPrefix("info") || $0.hasPrefix("notice") || $0.hasPrefix("warning") })
    }
}
