import Foundation
import Testing
@testable import WarmCacheBuilder

/// Loads manifests from text in a fresh temporary directory, and renders diagnostics with
/// paths relative to it, so tests compare exact compiler-style lines such as
/// `manifest.yml:3:5: error: ...`.
struct ManifestFixture {
    let directory: URL

    /// A new directory holding `files` (relative path → contents).
    init(files: [String: String] = [:]) throws {
        directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("manifest-tests-\(UUID().uuidString)", isDirectory: true)
        for (path, contents) in files {
            let url = directory.appendingPathComponent(path)
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(),
                                                    withIntermediateDirectories: true)
            try Data(contents.utf8).write(to: url)
        }
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    var manifestURL: URL { directory.appendingPathComponent("manifest.yml") }

    func load(_ yaml: String, environment: [String: String] = [:]) throws(ManifestError) -> WarmPlan {
        try ManifestLoader(environment: environment).load(yaml: yaml, fileURL: manifestURL)
    }

    /// The diagnostics of a manifest that must fail to load, paths relative to the fixture.
    func diagnostics(_ yaml: String, environment: [String: String] = [:],
                     sourceLocation: SourceLocation = #_sourceLocation) -> [String] {
        do {
            let plan = try load(yaml, environment: environment)
            Issue.record("expected the manifest to fail, got \(plan.sources.count) sources", sourceLocation: sourceLocation)
            return []
        } catch {
            return error.diagnostics.map { relative($0.description) }
        }
    }

    /// The warnings of a manifest that must load.
    func warnings(_ yaml: String, environment: [String: String] = [:]) throws -> [String] {
        try load(yaml, environment: environment).warnings.map { relative($0.description) }
    }

    func relative(_ text: String) -> String {
        text.replacingOccurrences(of: directory.standardizedFileURL.path + "/", with: "")
    }
}

enum RepositoryFiles {
    /// The package root, found from this file's path.
    static let root: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
}

/// A minimal valid manifest around `images` (and optional extra top-level YAML before it).
func minimalManifest(presets: String = "  thumb: { width: 64, height: 64, fit: cover }", extra: String = "",
                     images: String) -> String {
    """
    version: 1
    output: Build/Images.warmcache
    presets:
    \(presets)
    \(extra)
    images:
    \(images)
    """
}
