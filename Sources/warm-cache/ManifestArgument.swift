import ArgumentParser
import Foundation
import WarmCacheBuilder

/// The manifest path argument and its loading, shared by `warm` and `plan`.
struct ManifestArgument: ParsableArguments {
    @Argument(help: "The manifest (YAML).", completion: .file(extensions: ["yml", "yaml"]))
    var manifest: String = "warm-cache.yml"

    var url: URL {
        URL(fileURLWithPath: manifest, relativeTo: URL(fileURLWithPath: FileManager.default.currentDirectoryPath))
            .standardizedFileURL
    }

    /// The plan, or exit 65 after printing every manifest problem.
    func load(quiet: Bool) throws -> WarmPlan {
        do {
            let plan = try ManifestLoader().load(contentsOf: url)
            if !quiet {
                for warning in plan.warnings {
                    FileHandle.standardError.write(Data("\(warning)\n".utf8))
                }
            }
            return plan
        } catch {
            FileHandle.standardError.write(Data("\(error.description)\n".utf8))
            let count = error.errors.count
            Console.error("\(url.path): \(count) problem\(count == 1 ? "" : "s"); nothing was done")
            throw ExitCodes.invalidManifest
        }
    }
}
