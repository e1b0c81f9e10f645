import ArgumentParser
import Foundation
import WarmCacheBuilder

/// The manifest path argument and its loading, shared by `warm` and `plan`.
struct ManifestArgument: ParsableArguments {
    @Argument(help: ArgumentHelp(
        "The manifest (YAML).",
        discussion: "Default: the first of \(ConventionalManifest.names.joined(separator: ", ")) in the current directory."),
              completion: .file(extensions: ["yml", "yaml"]))
    var manifest: String?

    private static var currentDirectory: URL { URL(fileURLWithPath: FileManager.default.currentDirectoryPath) }

    /// The manifest named, or the conventional one found in the current directory.
    func url(command: String) throws -> URL {
        guard let path = manifest ?? ConventionalManifest.find(in: Self.currentDirectory) else {
            Console.error(ConventionalManifest.missingMessage(in: Self.currentDirectory, command: "warm-cache \(command)"))
            throw ExitCode.failure
        }
        return URL(fileURLWithPath: path, relativeTo: Self.currentDirectory).standardizedFileURL
    }

    /// The plan; exit 1 if the file cannot be read, 65 after printing every manifest problem.
    func load(command: String, quiet: Bool) throws -> WarmPlan {
        let url = try url(command: command)
        try Self.checkReadable(url)
        do {
            let plan = try ManifestLoader().load(contentsOf: url)
            if !quiet {
                for warning in plan.warnings {
                    FileHandle.standardError.write(Data("\(warning)\n".utf8))
                }
            }
            return plan
        } catch {
            Console.manifestErrors(error)
            let count = error.errors.count
            Console.error("\(url.path): \(count) problem\(count == 1 ? "" : "s"); nothing was done")
            throw ExitCodes.invalidManifest
        }
    }

    /// A manifest that is missing, a folder or unreadable is a file-system error (exit 1) with one
    /// line saying which and what to do, not a manifest problem at a made-up line.
    private static func checkReadable(_ url: URL) throws {
        var isDirectory: ObjCBool = false
        let problem: String?
        if !FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory) {
            problem = "no such file; check the path (or run where \(ConventionalManifest.names[0]) is)"
        } else if isDirectory.boolValue {
            problem = "it is a folder, not a manifest file; name the YAML file inside it"
        } else if !FileManager.default.isReadableFile(atPath: url.path) {
            problem = "permission denied; make the file readable (chmod u+r)"
        } else {
            problem = nil
        }
        guard let problem else { return }
        Console.error("cannot read the manifest \(url.path): \(problem)")
        throw ExitCode.failure
    }
}
