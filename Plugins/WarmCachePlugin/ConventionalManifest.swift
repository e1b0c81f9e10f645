import Foundation

// Shared by the plugin and the `warm-cache` CLI (Sources/warm-cache links to this file, as does
// the plugin's test target), so both look for the same manifests in the same order. Foundation
// only: the plugin cannot depend on the package's libraries.

/// The manifest a run uses when none is named.
enum ConventionalManifest {
    /// Where `warm-cache` (and `swift package warm-cache`) look for a manifest, in order, in the
    /// working directory (the package root for the plugin).
    static let names = ["warm-cache.yml", "warm-cache.yaml", "manifest.yml"]

    /// The first of ``names`` that exists in `directory`.
    static func find(in directory: URL, fileExists: (URL) -> Bool = {
        FileManager.default.fileExists(atPath: $0.path)
    }) -> String? {
        names.first { fileExists(directory.appendingPathComponent($0)) }
    }

    /// What to say when none exists.
    static func missingMessage(in directory: URL, command: String) -> String {
        "no manifest: none of \(names.joined(separator: ", ")) is in \(directory.path); "
            + "name one: \(command) path/to/manifest.yml"
    }
}
