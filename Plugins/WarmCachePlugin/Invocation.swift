import Foundation

// The plugin's argument logic, kept free of PackagePlugin so that the unit tests compile this
// same file (Tests/WarmCachePluginTests links to it).

/// The `warm-cache` command line the plugin runs, worked out from the plugin's arguments.
///
/// - Every `warm-cache` subcommand and flag passes through unchanged.
/// - With no subcommand, `warm` is meant (as for the CLI).
/// - `warm` and `plan` without a manifest get the conventional one from the package root:
///   the first of ``manifestNames`` that exists.
/// - `inspect`, `verify` and `lookup` without a bundle get the bundle that manifest writes
///   (or, with `--target`, the target's bundle).
/// - `--target NAME` (the plugin's own option) writes the bundle into that target's resources:
///   `warm` gets `--output <target dir>/Resources/<Name>.warmcache`, where `<Name>.warmcache` is the
///   last path component of the manifest's `output` (or `Images.warmcache` without one).
struct Invocation: Equatable {
    /// Where the plugin looks for a manifest, in order, in the package root (the CLI's list).
    static var manifestNames: [String] { ConventionalManifest.names }
    /// The bundle name used with `--target` when the manifest does not give one.
    static let defaultBundleName = "Images.warmcache"
    /// The folder inside a target that receives the bundle with `--target`.
    static let resourcesFolder = "Resources"

    /// The CLI's subcommands, and for each the options that take a value (everything else
    /// starting with `-` is a flag). Kept in step with Sources/warm-cache; a test checks the
    /// names against `warm-cache <subcommand> --help`.
    static let valueOptions: [String: Set<String>] = [
        "warm": ["-o", "--output", "--cache-dir", "--report", "--html", "--max-age", "--budget", "--concurrency", "-j",
                 "--jobs", "--memory-limit", "--shard", "--sign-key", "--sign-version", "--sign-expires"],
        "plan": ["--shard", "--shards"],
        "merge": ["-o", "--output", "--report", "--reports", "--sign-key", "--sign-version", "--sign-expires"],
        "pull": ["--public-key", "--concurrency", "--timeout", "--max-index-mib", "--seed"],
        "inspect": ["--largest", "--html"],
        "verify": ["--public-key"],
        "lookup": ["--size", "--scale", "--accept", "--fit", "--preset", "--processors", "--manifest"],
        "keygen": [],
        "sign": ["--key", "--sign-version", "--expires"],
    ]

    /// The arguments for `warm-cache`.
    var arguments: [String]
    /// The manifest the run uses, relative to the package directory when it is inside it.
    var manifest: String?

    /// A reason the plugin cannot run; the message is shown as is.
    struct Problem: Error, Equatable, CustomStringConvertible {
        var description: String
        init(_ description: String) { self.description = description }
    }

    /// What the plugin needs to know about the package, supplied by the caller (and by tests).
    struct Environment {
        /// The package (or Xcode project) directory: the working directory of `warm-cache`.
        var directory: URL
        /// The directory of a target of this package, or `nil` if there is no such target.
        var targetDirectory: (String) -> URL?
        /// The names of the package's source targets, for error messages.
        var targetNames: [String]
        var fileExists: (URL) -> Bool = { FileManager.default.fileExists(atPath: $0.path) }
        var readText: (URL) -> String? = { try? String(contentsOf: $0, encoding: .utf8) }
        var variables: [String: String] = ProcessInfo.processInfo.environment
    }

    /// Works out the command line from the plugin's arguments.
    init(pluginArguments: [String], environment env: Environment) throws {
        var (rest, targets) = try Invocation.extractTargets(pluginArguments)
        guard targets.count <= 1 else {
            throw Problem("--target was given \(targets.count) times; give one target")
        }
        let target = targets.first

        // Help and version pass straight through: no manifest is needed to read them.
        let helpFlags: Set = ["-h", "--help", "-help", "--version"]
        if rest.first == "help" || rest.prefix(while: { $0 != "--" }).contains(where: helpFlags.contains) {
            if target != nil { throw Problem("--target cannot be combined with help or --version") }
            arguments = rest
            manifest = nil
            return
        }

        let subcommand: String
        if let first = rest.first, Invocation.valueOptions[first] != nil {
            subcommand = first
            rest.removeFirst()
        } else {
            subcommand = "warm"
        }
        let positionals = Invocation.positionalCount(rest, valueOptions: Invocation.valueOptions[subcommand] ?? [])
        let targetDirectory = try target.map { name -> URL in
            guard let url = env.targetDirectory(name) else {
                let known = env.targetNames.isEmpty ? "it has none" : "it has " + env.targetNames.joined(separator: ", ")
                throw Problem("the package has no source target named '\(name)' (\(known))")
            }
            return url
        }

        switch subcommand {
        case "warm", "plan":
            let manifestPath: String
            if positionals == 0 {
                guard let found = Invocation.findManifest(in: env) else {
                    throw Problem(ConventionalManifest.missingMessage(
                        in: env.directory, command: "swift package warm-cache \(subcommand)"))
                }
                manifestPath = found
                rest.insert(found, at: 0)
            } else {
                manifestPath = Invocation.firstPositional(rest, valueOptions: Invocation.valueOptions[subcommand]!)!
            }
            manifest = manifestPath
            if let targetDirectory {
                guard subcommand == "warm" else {
                    throw Problem("--target is for warm, inspect, verify, lookup and sign; plan writes nothing")
                }
                if rest.contains(where: { $0 == "-o" || $0 == "--output" || $0.hasPrefix("--output=") }) {
                    throw Problem("give either --target or --output, not both")
                }
                let manifestURL = Invocation.resolve(manifestPath, in: env.directory)
                let bundle = Invocation.targetBundle(targetDirectory, manifest: manifestURL, env: env)
                rest += ["--output", Invocation.relativePath(bundle, to: env.directory)]
            }
        case "merge", "pull", "keygen":
            manifest = nil // their arguments name everything they need
        case "inspect", "verify", "lookup", "sign":
            let needed = subcommand == "lookup" ? 2 : 1
            if positionals >= needed {
                if target != nil {
                    throw Problem("--target names the bundle: leave the bundle argument out of \(subcommand)")
                }
                manifest = nil
            } else if positionals == needed - 1 {
                let found = Invocation.findManifest(in: env)
                manifest = found
                let manifestURL = found.map { Invocation.resolve($0, in: env.directory) }
                let bundle: URL
                if let targetDirectory {
                    bundle = Invocation.targetBundle(targetDirectory, manifest: manifestURL, env: env)
                } else if let manifestURL, let output = Invocation.manifestOutput(manifestURL, env: env) {
                    bundle = output
                } else {
                    throw Problem("""
                        which bundle? name it (swift package warm-cache \(subcommand) path/to/Name.warmcache), \
                        use --target, or keep a manifest (\(Invocation.manifestNames.joined(separator: ", "))) \
                        with an 'output' in \(env.directory.path)
                        """)
                }
                rest.insert(Invocation.relativePath(bundle, to: env.directory), at: 0)
            } else {
                manifest = nil // lookup with no arguments at all: let the CLI explain its usage.
            }
        default:
            preconditionFailure("unhandled subcommand \(subcommand)")
        }
        arguments = [subcommand] + rest
    }

    // MARK: Pieces (internal for the tests)

    /// Removes `--target NAME` / `--target=NAME` (before any `--`) and returns the names.
    static func extractTargets(_ arguments: [String]) throws -> (rest: [String], targets: [String]) {
        var rest: [String] = []
        var targets: [String] = []
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            if argument == "--" {
                rest += arguments[index...]
                break
            }
            if argument == "--target" {
                guard index + 1 < arguments.count, !arguments[index + 1].hasPrefix("-") else {
                    throw Problem("--target needs a target name: --target App")
                }
                targets.append(arguments[index + 1])
                index += 2
                continue
            }
            if argument.hasPrefix("--target=") {
                let name = String(argument.dropFirst("--target=".count))
                guard !name.isEmpty else { throw Problem("--target needs a target name: --target App") }
                targets.append(name)
            } else {
                rest.append(argument)
            }
            index += 1
        }
        return (rest, targets)
    }

    /// The positional arguments among `arguments` (everything after `--` is positional).
    static func positionals(_ arguments: [String], valueOptions: Set<String>) -> [String] {
        var result: [String] = []
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            if argument == "--" {
                result += arguments[(index + 1)...]
                break
            }
            if argument.hasPrefix("-") && argument != "-" {
                if valueOptions.contains(argument) { index += 1 }
            } else {
                result.append(argument)
            }
            index += 1
        }
        return result
    }

    static func positionalCount(_ arguments: [String], valueOptions: Set<String>) -> Int {
        positionals(arguments, valueOptions: valueOptions).count
    }

    static func firstPositional(_ arguments: [String], valueOptions: Set<String>) -> String? {
        positionals(arguments, valueOptions: valueOptions).first
    }

    /// The first conventional manifest name that exists in the package directory.
    static func findManifest(in env: Environment) -> String? {
        ConventionalManifest.find(in: env.directory, fileExists: env.fileExists)
    }

    /// `<target dir>/Resources/<Name>.warmcache`.
    static func targetBundle(_ targetDirectory: URL, manifest: URL?, env: Environment) -> URL {
        let name = manifest.flatMap { manifestOutput($0, env: env) }?.lastPathComponent ?? defaultBundleName
        return targetDirectory.appendingPathComponent(resourcesFolder).appendingPathComponent(name)
    }

    /// The manifest's top-level `output`, resolved against the manifest's folder, with `${VAR}`
    /// and `${VAR:-default}` substituted; `nil` if there is none or it does not end in `.warmcache`.
    /// A line scan, not a YAML parser: `warm-cache` itself validates the manifest.
    static func manifestOutput(_ manifest: URL, env: Environment) -> URL? {
        guard let text = env.readText(manifest) else { return nil }
        for rawLine in text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline) {
            guard rawLine.hasPrefix("output:") else { continue }
            var value = rawLine.dropFirst("output:".count).trimmingCharacters(in: .whitespaces)
            if let quote = value.first, quote == "\"" || quote == "'" {
                guard let end = value.dropFirst().firstIndex(of: quote) else { return nil }
                value = String(value[value.index(after: value.startIndex)..<end])
            } else if let comment = value.range(of: " #") {
                value = value[..<comment.lowerBound].trimmingCharacters(in: .whitespaces)
            }
            guard let substituted = substitute(value, variables: env.variables), !substituted.isEmpty,
                  substituted.hasSuffix(".warmcache") else { return nil }
            return resolve(substituted, in: manifest.deletingLastPathComponent())
        }
        return nil
    }

    /// `${NAME}`, `${NAME:-default}` and `$$` from `variables`, by the manifest's own rules
    /// (``ManifestEnvironment``, shared with the CLI); `nil` when a reference cannot be substituted.
    static func substitute(_ text: String, variables: [String: String]) -> String? {
        try? ManifestEnvironment(variables: variables).substitute(text).get()
    }

    /// `path` if absolute, else `directory/path`.
    static func resolve(_ path: String, in directory: URL) -> URL {
        let url = path.hasPrefix("/") ? URL(fileURLWithPath: path) : directory.appendingPathComponent(path)
        return url.standardizedFileURL
    }

    /// `url` relative to `directory` when it is inside it, else the absolute path.
    static func relativePath(_ url: URL, to directory: URL) -> String {
        let base = directory.standardizedFileURL.path
        let path = url.standardizedFileURL.path
        let prefix = base.hasSuffix("/") ? base : base + "/"
        return path.hasPrefix(prefix) ? String(path.dropFirst(prefix.count)) : path
    }
}
