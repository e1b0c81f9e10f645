import Foundation
import Logging
import WarmCache
import WarmCacheBuilder

/// Runs the warm pipeline the way the CLI does, from a manifest file.
enum Warm {
    static let logger = Logger(label: "warmcache-e2e") { _ in SwiftLogNoOpLogHandler() }

    /// Loads `manifest`, optionally redirects its output, and runs the pipeline. The report has
    /// every source: it is read back from the report file the run writes.
    static func run(_ manifest: URL, output: URL? = nil, options: WarmOptions) async throws
        -> Result<WarmReport, WarmError> {
        var plan = try ManifestLoader(environment: [:]).load(contentsOf: manifest)
        if let output { plan.output = output }
        var options = options
        let reportURL = options.reportURL ?? FileManager.default.temporaryDirectory
            .appendingPathComponent("warm-report-\(UUID().uuidString).json")
        options.reportURL = reportURL
        defer { try? FileManager.default.removeItem(at: reportURL) }
        func fullReport() throws -> WarmReport {
            try JSONDecoder().decode(WarmReport.self, from: Data(contentsOf: reportURL))
        }
        let result: Result<WarmReport, WarmError>
        do {
            result = .success(try await WarmPipeline(plan: plan, options: options, logger: logger).run())
        } catch {
            result = .failure(error)
        }
        switch result {
        case .success:
            return .success(try fullReport())
        case .failure(var error):
            if error.report != nil { error.report = try fullReport() }
            return .failure(error)
        }
    }

    /// Options with the cache in the scratch directory (never beside a shared manifest).
    static func options(cache: URL, strict: Bool = false, offline: Bool = false, imaging: Int? = nil,
                        fetch: Int? = nil) -> WarmOptions {
        WarmOptions(cacheDirectory: cache, strict: strict, offline: offline, imagingConcurrency: imaging,
                    fetchConcurrency: fetch)
    }
}

extension Result where Success == WarmReport, Failure == WarmError {
    /// The report of a run expected to publish; throws the run's error otherwise.
    func published() throws -> WarmReport {
        switch self {
        case .success(let report): return report
        case .failure(let error): throw UnexpectedRunFailure(error: error)
        }
    }

    /// The error of a run expected to publish nothing, or `nil` if it published.
    var failure: WarmError? {
        if case .failure(let error) = self { return error }
        return nil
    }
}

struct UnexpectedRunFailure: Error, CustomStringConvertible {
    var error: WarmError
    var description: String {
        "the run failed (\(error.kind)): \(error.message)"
            + (error.report.map { "; failures: " + $0.failures.map { "\($0.identifier): \($0.failure?.message ?? "")" }.joined(separator: "; ") } ?? "")
    }
}

extension WarmReport {
    func source(_ url: URL) -> SourceReport? {
        sources.first { $0.identifier == SourceIdentifier(url.absoluteString).rawValue }
    }
}
