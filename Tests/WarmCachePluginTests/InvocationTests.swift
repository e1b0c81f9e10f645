import Foundation
import Testing

// Invocation.swift in this folder is a link to Plugins/WarmCachePlugin/Invocation.swift: the
// plugin's argument logic, tested without SwiftPM running a plugin.

private let root = URL(fileURLWithPath: "/pkg")

/// A package at /pkg with the given files (path → text) and targets App (Sources/App) and Core.
private func environment(_ files: [String: String], variables: [String: String] = [:]) -> Invocation.Environment {
    let targets = ["App": root.appendingPathComponent("Sources/App"), "Core": root.appendingPathComponent("Sources/Core")]
    return Invocation.Environment(
        directory: root,
        targetDirectory: { targets[$0] },
        targetNames: targets.keys.sorted(),
        fileExists: { url in files[Invocation.relativePath(url, to: root)] != nil },
        readText: { url in files[Invocation.relativePath(url, to: root)] },
        variables: variables)
}

private let manifest = "version: 1\noutput: Build/Photos.warmcache\nimages: []\n"

private func arguments(_ plugin: [String], _ files: [String: String] = ["warm-cache.yml": manifest],
                       variables: [String: String] = [:]) throws -> [String] {
    try Invocation(pluginArguments: plugin, environment: environment(files, variables: variables)).arguments
}

private func problem(_ plugin: [String], _ files: [String: String] = ["warm-cache.yml": manifest]) -> String? {
    do {
        _ = try Invocation(pluginArguments: plugin, environment: environment(files))
        return nil
    } catch {
        return "\(error)"
    }
}

@Suite("Plugin: manifest by convention")
struct ManifestConventionTests {
    @Test("no arguments: warm the conventional manifest")
    func bare() throws {
        #expect(try arguments([]) == ["warm", "warm-cache.yml"])
        let invocation = try Invocation(pluginArguments: [], environment: environment(["warm-cache.yml": manifest]))
        #expect(invocation.manifest == "warm-cache.yml")
    }

    @Test("first found of warm-cache.yml, warm-cache.yaml, manifest.yml")
    func order() throws {
        #expect(try arguments([], ["manifest.yml": manifest]) == ["warm", "manifest.yml"])
        #expect(try arguments([], ["manifest.yml": manifest, "warm-cache.yaml": manifest]) == ["warm", "warm-cache.yaml"])
        #expect(try arguments([], ["manifest.yml": manifest, "warm-cache.yml": manifest, "warm-cache.yaml": manifest])
            == ["warm", "warm-cache.yml"])
    }

    @Test("no manifest: an error that lists the names looked for")
    func none() {
        let message = problem([], [:])
        #expect(message?.contains("warm-cache.yml, warm-cache.yaml, manifest.yml") == true)
        #expect(message?.contains("/pkg") == true)
    }

    @Test("flags and option values are not taken for a manifest")
    func flags() throws {
        #expect(try arguments(["--offline", "-v"]) == ["warm", "warm-cache.yml", "--offline", "-v"])
        #expect(try arguments(["--cache-dir", "/tmp/c", "--report", "r.json", "-j", "2", "--max-age", "7d"])
            == ["warm", "warm-cache.yml", "--cache-dir", "/tmp/c", "--report", "r.json", "-j", "2", "--max-age", "7d"])
        #expect(try arguments(["plan", "--json"]) == ["plan", "warm-cache.yml", "--json"])
        #expect(try arguments(["--output=Out.warmcache"]) == ["warm", "warm-cache.yml", "--output=Out.warmcache"])
    }

    @Test("a manifest given is used as is, before or after options")
    func explicit() throws {
        #expect(try arguments(["other.yml"], [:]) == ["warm", "other.yml"])
        #expect(try arguments(["warm", "--strict", "sub/other.yml"], [:]) == ["warm", "--strict", "sub/other.yml"])
        #expect(try arguments(["plan", "--", "-odd.yml"], [:]) == ["plan", "--", "-odd.yml"])
        let invocation = try Invocation(pluginArguments: ["-q", "sub/other.yml"], environment: environment([:]))
        #expect(invocation.manifest == "sub/other.yml")
    }

    @Test("help and version pass through untouched, manifest or not")
    func help() throws {
        #expect(try arguments(["--help"], [:]) == ["--help"])
        #expect(try arguments(["warm", "-h"], [:]) == ["warm", "-h"])
        #expect(try arguments(["help", "lookup"], [:]) == ["help", "lookup"])
        #expect(try arguments(["--version"], [:]) == ["--version"])
    }
}

@Suite("Plugin: bundles and --target")
struct TargetTests {
    @Test("--target App writes <App>/Resources/<manifest output name>")
    func target() throws {
        #expect(try arguments(["--target", "App"])
            == ["warm", "warm-cache.yml", "--output", "Sources/App/Resources/Photos.warmcache"])
        #expect(try arguments(["--strict", "--target=Core"])
            == ["warm", "warm-cache.yml", "--strict", "--output", "Sources/Core/Resources/Photos.warmcache"])
    }

    @Test("--target without a usable output in the manifest: Images.warmcache")
    func defaultName() throws {
        let files = ["warm-cache.yml": "version: 1\noutput: ${UNSET_NAME}.warmcache\nimages: []\n"]
        #expect(try arguments(["--target", "App"], files)
            == ["warm", "warm-cache.yml", "--output", "Sources/App/Resources/Images.warmcache"])
    }

    @Test("--target errors: unknown target, with --output, twice, without a name, with plan")
    func targetErrors() {
        #expect(problem(["--target", "Nope"])?.contains("no source target named 'Nope' (it has App, Core)") == true)
        #expect(problem(["--target", "App", "-o", "x.warmcache"])?.contains("not both") == true)
        #expect(problem(["--target", "App", "--target", "Core"])?.contains("2 times") == true)
        #expect(problem(["--target"])?.contains("needs a target name") == true)
        #expect(problem(["--target", "--strict"])?.contains("needs a target name") == true)
        #expect(problem(["plan", "--target", "App"])?.contains("plan writes nothing") == true)
        #expect(problem(["--help", "--target", "App"]) != nil)
    }

    @Test("inspect, verify and lookup default to the manifest's bundle")
    func bundleDefault() throws {
        #expect(try arguments(["verify"]) == ["verify", "Build/Photos.warmcache"])
        #expect(try arguments(["inspect", "--json", "--largest", "3"])
            == ["inspect", "Build/Photos.warmcache", "--json", "--largest", "3"])
        #expect(try arguments(["lookup", "asset://coffee", "--size", "100x100", "--scale", "2"])
            == ["lookup", "Build/Photos.warmcache", "asset://coffee", "--size", "100x100", "--scale", "2"])
    }

    @Test("inspect, verify and lookup with --target use the target's bundle")
    func bundleTarget() throws {
        #expect(try arguments(["verify", "--target", "App"]) == ["verify", "Sources/App/Resources/Photos.warmcache"])
        #expect(try arguments(["lookup", "--target", "App", "asset://coffee", "--size", "10x10"])
            == ["lookup", "Sources/App/Resources/Photos.warmcache", "asset://coffee", "--size", "10x10"])
        #expect(problem(["verify", "x.warmcache", "--target", "App"])?.contains("leave the bundle argument out") == true)
    }

    @Test("sign defaults to the manifest's bundle too; merge, pull and keygen pass through")
    func signingAndPassThrough() throws {
        #expect(try arguments(["sign", "--key", "k.key", "--sign-version", "7"])
            == ["sign", "Build/Photos.warmcache", "--key", "k.key", "--sign-version", "7"])
        #expect(try arguments(["sign", "--target", "App"]) == ["sign", "Sources/App/Resources/Photos.warmcache"])
        #expect(try arguments(["pull", "https://cdn.test/B.warmcache/", "B.warmcache", "--public-key", "k"])
            == ["pull", "https://cdn.test/B.warmcache/", "B.warmcache", "--public-key", "k"])
        #expect(try arguments(["merge", "-o", "M.warmcache", "p1.warmcache"]) == ["merge", "-o", "M.warmcache", "p1.warmcache"])
        #expect(try arguments(["keygen", "k.key"]) == ["keygen", "k.key"])
    }

    @Test("a bundle given is passed through")
    func bundleGiven() throws {
        #expect(try arguments(["verify", "/abs/B.warmcache"], [:]) == ["verify", "/abs/B.warmcache"])
        #expect(try arguments(["lookup", "B.warmcache", "https://x/a.jpg", "--size", "1x1"], [:])
            == ["lookup", "B.warmcache", "https://x/a.jpg", "--size", "1x1"])
        #expect(problem(["verify"], [:])?.contains("which bundle?") == true)
    }
}

@Suite("Plugin: reading the manifest's output")
struct ManifestOutputTests {
    private func output(_ text: String, variables: [String: String] = [:]) -> String? {
        let env = environment(["sub/m.yml": text], variables: variables)
        return Invocation.manifestOutput(root.appendingPathComponent("sub/m.yml"), env: env)
            .map { Invocation.relativePath($0, to: root) }
    }

    @Test("relative to the manifest; quotes and comments; only the top-level key")
    func forms() {
        #expect(output("output: Build/A.warmcache") == "sub/Build/A.warmcache")
        #expect(output("output: \"../B.warmcache\"  # here") == "B.warmcache")
        #expect(output("output: 'C D.warmcache'") == "sub/C D.warmcache")
        #expect(output("output: E.warmcache # comment") == "sub/E.warmcache")
        #expect(output("output: /abs/F.warmcache") == "/abs/F.warmcache")
        #expect(output("fetch:\n  output: X.warmcache\n") == nil)
        #expect(output("output: not-a-bundle") == nil)
        #expect(output("version: 1\r\noutput: G.warmcache\r\n") == "sub/G.warmcache")
    }

    @Test("${VAR} and ${VAR:-default}")
    func variables() {
        #expect(output("output: ${DIR}/A.warmcache", variables: ["DIR": "out"]) == "sub/out/A.warmcache")
        #expect(output("output: ${NAME:-Images}.warmcache") == "sub/Images.warmcache")
        #expect(output("output: ${NAME:-Images}.warmcache", variables: ["NAME": "Hero"]) == "sub/Hero.warmcache")
        #expect(output("output: ${NAME}.warmcache") == nil)
        #expect(Invocation.substitute("${A", variables: [:]) == nil)
        // The CLI's rules: `$$` is a literal dollar, an empty variable takes its default.
        #expect(Invocation.substitute("$${A}-${B:-b}", variables: ["B": ""]) == "${A}-b")
    }
}

@Suite("Plugin: exit statuses")
struct ExitStatusTests {
    @Test("each documented status has its own message")
    func messages() {
        #expect(ExitStatus.meaning(of: 3, subcommand: "warm").contains("some sources failed"))
        #expect(ExitStatus.meaning(of: 2, subcommand: "lookup").contains("no image"))
        #expect(ExitStatus.meaning(of: 2, subcommand: "verify").contains("verify found problems"))
        #expect(ExitStatus.meaning(of: 65, subcommand: "warm").contains("invalid manifest"))
        #expect(ExitStatus.meaning(of: 75, subcommand: "warm").contains("lock"))
        #expect(ExitStatus.meaning(of: 6, subcommand: "pull").contains("refused by a signed-update check"))
        #expect(ExitStatus.meaning(of: 9, subcommand: "warm") == "warm-cache exited with status 9")
        let documented = ExitStatus.allCases.map(\.rawValue)
        #expect(Set(documented.map { ExitStatus.meaning(of: $0, subcommand: "warm") }).count == documented.count)
    }
}

@Suite("Plugin: in step with the CLI")
struct CLIAgreementTests {
    /// `warm-cache` beside the test bundle (`swift test` builds every product), or nil.
    private static var tool: URL? {
        var directory = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().deletingLastPathComponent()
        for _ in 0..<4 {
            let candidate = directory.appendingPathComponent("warm-cache")
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
            directory.deleteLastPathComponent()
        }
        return nil
    }

    private static func help(_ arguments: [String]) throws -> String {
        let process = Process()
        process.executableURL = tool
        process.arguments = arguments + ["--help"]
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile() // drained before waiting
        process.waitUntilExit()
        return String(decoding: data, as: UTF8.self)
    }

    @Test("the plugin knows every subcommand and which of its options take a value",
          .enabled(if: tool != nil, "warm-cache is not built beside the tests"))
    func optionTables() throws {
        let top = try Self.help([])
        let subcommands = top.components(separatedBy: "SUBCOMMANDS:").last!
            .split(separator: "\n").compactMap { line -> String? in
                let word = line.trimmingCharacters(in: .whitespaces).split(separator: " ").first.map(String.init)
                // A subcommand line starts with two spaces; wrapped abstracts are indented further.
                return line.hasPrefix("  ") && !line.hasPrefix("   ") && word?.first?.isLetter == true ? word : nil
            }
            .filter { $0 != "See" }
        #expect(Set(subcommands) == Set(Invocation.valueOptions.keys))

        for subcommand in Invocation.valueOptions.keys {
            let text = try Self.help([subcommand]).components(separatedBy: "OPTIONS:").last!
            var takesValue: Set<String> = []
            for line in text.split(separator: "\n") where line.hasPrefix("  -") {
                let spec = line.trimmingCharacters(in: .whitespaces).components(separatedBy: "  ").first!
                guard spec.contains("<") else { continue }
                for name in spec.split(separator: " ") where name.hasPrefix("-") {
                    takesValue.insert(String(name.trimmingCharacters(in: CharacterSet(charactersIn: ","))))
                }
            }
            #expect(takesValue == Invocation.valueOptions[subcommand]!, "warm-cache \(subcommand)")
        }
    }
}

@Suite("Finding an installed warm-cache")
struct ToolLocationTests {
    @Test("Xcode's bare PATH is searched, then Homebrew's folders, ~/.local/bin and Mint's, each once")
    func folders() {
        #expect(ToolLocation.folders(path: "/usr/bin:/bin:/usr/sbin:/sbin:/usr/local/bin", home: "/Users/ada")
                == ["/usr/bin", "/bin", "/usr/sbin", "/sbin", "/usr/local/bin", "/opt/homebrew/bin",
                    "/Users/ada/.local/bin", "/Users/ada/.mint/bin"])
        #expect(ToolLocation.folders(path: nil, home: "/h").first == "/opt/homebrew/bin")
    }

    @Test("an app started from the Finder finds a tool Homebrew installed")
    func findsHomebrewsTool() {
        let found = ToolLocation.find("warm-cache", environment: ["PATH": "/usr/bin:/bin", "HOME": "/Users/ada"],
                                      isExecutable: { $0 == "/opt/homebrew/bin/warm-cache" })
        #expect(found?.path == "/opt/homebrew/bin/warm-cache")
        #expect(ToolLocation.find("warm-cache", environment: ["PATH": "/usr/bin"], isExecutable: { _ in false }) == nil)
    }
}
