import Foundation
import Logging
import Testing
import WarmCacheTestSupport

@testable import WarmCacheBuilder

/// Settings that keep failure tests fast: tiny backoff, few retries. The time limits are far
/// beyond what a loopback answer takes on a loaded machine (a request held past a short one
/// is retried, and the test sees one attempt too many); tests of the limits set short ones.
func fastConfiguration(
    concurrency: Int = 8, perHost: Int = 8, requestTimeout: TimeInterval = 300, retries: Int = 2,
    maxBytes: Int = 50 * 1024 * 1024, maxRedirects: Int = 5, maxRetryAfter: TimeInterval = 5,
    headers: [(name: String, value: String)] = []
) -> FetchSettings {
    FetchSettings(
        concurrency: concurrency, perHost: perHost, connectTimeout: 60, requestTimeout: requestTimeout,
        retries: retries, retryDelay: 0.005, maxBackoff: 0.02, maxRetryAfter: maxRetryAfter,
        maxBytes: maxBytes, maxRedirects: maxRedirects,
        headers: headers.map { FetchHeader(name: $0.name, value: SecretString($0.value)) })
}

/// One test's world: a fixture server, a fetcher and an empty scratch directory, all
/// torn down afterwards whether the body throws or not.
struct FetchHarness {
    let server: FixtureServer
    let fetcher: ImageFetcher
    let directory: URL

    /// A destination file in the scratch directory.
    func destination(_ name: String = "original.bin") -> URL {
        directory.appendingPathComponent(name)
    }

    /// Names in the scratch directory, hidden staging files included. (Non-throwing so
    /// it reads well inside `#expect`; an unreadable directory shows up in the list.)
    func directoryListing() -> [String] {
        do {
            return try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted()
        } catch {
            return ["<cannot list: \(error)>"]
        }
    }

    /// Fetches `path` from the fixture server into `destination(name)`.
    func fetch(_ path: String, to name: String = "original.bin", validators: CacheValidators? = nil) async throws -> FetchOutcome {
        try await fetcher.fetch(server.url(path), to: destination(name), validators: validators)
    }

    /// Fetches `path`, expecting a `FetchError`; records an issue and returns `nil` otherwise.
    func fetchError(_ path: String, to name: String = "original.bin", sourceLocation: SourceLocation = #_sourceLocation) async -> FetchError? {
        do {
            let outcome = try await fetch(path, to: name)
            Issue.record("expected a FetchError, got \(outcome)", sourceLocation: sourceLocation)
        } catch let error as FetchError {
            return error
        } catch {
            Issue.record("expected a FetchError, got \(error)", sourceLocation: sourceLocation)
        }
        return nil
    }
}

func withFetchHarness<T>(
    routes: [String: FixtureRoute] = [:], configuration: FetchSettings = fastConfiguration(),
    _ body: (FetchHarness) async throws -> T
) async throws -> T {
    let server = try await FixtureServer.start(routes: routes)
    let fetcher = ImageFetcher(settings: configuration, logger: Logger(label: "warmcache.fetch.tests"))
    let directory = FileManager.default.temporaryDirectory
        .appendingPathComponent("warmcache-fetch-\(UUID().uuidString)", isDirectory: true)
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    let harness = FetchHarness(server: server, fetcher: fetcher, directory: directory)

    func tearDown() async throws {
        try await fetcher.shutdown()
        try await server.shutdown()
        try? FileManager.default.removeItem(at: directory)
    }
    do {
        let result = try await body(harness)
        try await tearDown()
        return result
    } catch {
        try? await tearDown()
        throw error
    }
}

/// The downloaded original, or an issue if the outcome was something else.
func downloaded(_ outcome: FetchOutcome, sourceLocation: SourceLocation = #_sourceLocation) throws -> FetchedOriginal {
    guard case .downloaded(let original) = outcome else {
        Issue.record("expected a download, got \(outcome)", sourceLocation: sourceLocation)
        throw HarnessFailure()
    }
    return original
}

struct HarnessFailure: Error {}

/// Real example images from the repository, with digests computed by `sha256sum`.
enum ExampleImages {
    static let directory = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent()  // Fetching
        .deletingLastPathComponent()  // WarmCacheBuilderTests
        .deletingLastPathComponent()  // Tests
        .deletingLastPathComponent()  // package root
        .appendingPathComponent("Examples/Images")

    static func bytes(_ name: String) throws -> [UInt8] {
        Array(try Data(contentsOf: directory.appendingPathComponent(name)))
    }

    static let coffeeSHA256 = "cc02f8ca188b167c775a7101b5d767d1e71792cf762c33d6fa15a4599b5a8de7"
    static let rocketSHA256 = "c2dd0de7c538df8d111e479619b129464d0269d0ae5fd18ca91d33a7fdfea95c"
}
