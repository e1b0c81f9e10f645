import Foundation
import PackagePlugin

/// `swift package warm-cache [subcommand] [options]`: runs the `warm-cache` tool in the package
/// directory. A thin launcher; docs/plugin.md describes the conventions.
@main
struct WarmCachePlugin: CommandPlugin {
    func performCommand(context: PluginContext, arguments: [String]) async throws {
        let package = context.package
        // Source targets and their folders (`Target.directoryURL` needs tools 6.1; the concrete types have it in 6.0).
        let sourceTargets: [(name: String, directory: URL)] = package.targets.compactMap { target in
            switch target {
            case let swift as SwiftSourceModuleTarget where swift.kind != .test: (swift.name, swift.directoryURL)
            case let clang as ClangSourceModuleTarget where clang.kind != .test: (clang.name, clang.directoryURL)
            default: nil
            }
        }
        let environment = Invocation.Environment(
            directory: package.directoryURL,
            targetDirectory: { name in sourceTargets.first { $0.name == name }?.directory },
            targetNames: sourceTargets.map(\.name))
        guard let invocation = ToolRun.invocation(arguments, environment) else { return }
        // Without the Builder trait the tool's packages are not in the graph: one line, no build.
        if let tool = Self.toolTarget(in: package),
           BuilderTrait.isOff(toolDependencies: tool.dependencies.map(Self.name)) {
            Diagnostics.error(BuilderTrait.advice)
            return
        }
        guard let tool = buildTool() else { return }
        ToolRun.run(tool, invocation, in: package.directoryURL)
    }

    /// The `warm-cache` target in the package or its dependencies, as the graph resolved it.
    private static func toolTarget(in root: Package) -> Target? {
        var queue = [root]
        var seen = Set<String>()
        while !queue.isEmpty {
            let package = queue.removeFirst()
            guard seen.insert(package.id).inserted else { continue }
            if let target = package.targets.first(where: { $0.name == ToolRun.toolName }) { return target }
            queue += package.dependencies.map(\.package)
        }
        return nil
    }

    private static func name(_ dependency: TargetDependency) -> String {
        switch dependency {
        case .target(let target): target.name
        case .product(let product): product.name
        @unknown default: ""
        }
    }

    /// Builds the `warm-cache` product (incremental, in the package's own build folder, shared
    /// with `swift build`; debug unless `swift package -c release warm-cache`) and returns the
    /// executable. See docs/plugin.md for why this beats a plugin dependency on the executable target.
    private func buildTool() -> URL? {
        let result: PackageManager.BuildResult
        do {
            result = try packageManager.build(
                .product(ToolRun.toolName),
                parameters: .init(configuration: .inherit, logging: .concise, echoLogs: true))
        } catch {
            Diagnostics.error("cannot build \(ToolRun.toolName): \(error)")
            return nil
        }
        guard result.succeeded else {
            Diagnostics.error(BuilderTrait.explainsFailure(result.logText) ? BuilderTrait.advice
                : "building \(ToolRun.toolName) failed; the compiler's errors are printed above")
            return nil
        }
        let executable = result.builtArtifacts.first {
            $0.kind == .executable && $0.url.deletingPathExtension().lastPathComponent == ToolRun.toolName
        }
        guard let executable else {
            Diagnostics.error("the build of \(ToolRun.toolName) reported no executable")
            return nil
        }
        return executable.url
    }
}

#if canImport(XcodeProjectPlugin)
import XcodeProjectPlugin

/// In an Xcode app project (the project's context menu, or File > Packages): the same
/// conventions, from the project directory. Xcode offers command plugins no build service, so the
/// tool is an installed `warm-cache` (``ToolLocation``: PATH and the usual install folders), or,
/// when there is none, one this plugin builds once from the WarmCache checkout Xcode resolved,
/// in release, into its own work folder.
extension WarmCachePlugin: XcodeCommandPlugin {
    func performCommand(context: XcodePluginContext, arguments: [String]) throws {
        let directory = context.xcodeProject.directoryURL
        let environment = Invocation.Environment(
            directory: directory, targetDirectory: { _ in nil },
            targetNames: context.xcodeProject.targets.map(\.displayName))
        guard let invocation = ToolRun.invocation(arguments, environment) else { return }
        // The running Xcode's own swift, not whichever Xcode xcode-select names.
        let swift = (try? context.tool(named: "swift"))?.url
        guard let tool = ToolLocation.find(ToolRun.toolName)
            ?? ToolRun.buildFromCheckout(into: context.pluginWorkDirectoryURL, swift: swift) else { return }
        ToolRun.run(tool, invocation, in: directory)
    }
}
#endif

/// Running the tool: shared by the SwiftPM and Xcode entry points.
enum ToolRun {
    static let toolName = "warm-cache"

    /// The command line, or `nil` after reporting why there is none.
    static func invocation(_ arguments: [String], _ environment: Invocation.Environment) -> Invocation? {
        do {
            return try Invocation(pluginArguments: arguments, environment: environment)
        } catch {
            Diagnostics.error("\(error)")
            return nil
        }
    }

    /// Runs `tool` in `directory` with the plugin's standard output and error (so its progress
    /// shows as it happens and no pipe can fill up), and turns a failure into an error diagnostic
    /// that says what the exit status means.
    static func run(_ tool: URL, _ invocation: Invocation, in directory: URL) {
        let process = Process()
        process.executableURL = tool
        process.arguments = invocation.arguments
        process.currentDirectoryURL = directory
        // The plugin's standard input carries SwiftPM's messages: the tool must not read it.
        process.standardInput = FileHandle.nullDevice
        // A remark, not print: SwiftPM puts everything the plugin and the tool write on its standard
        // output, and `swift package warm-cache lookup … --json > hit.json` must stay valid JSON.
        Diagnostics.remark("running warm-cache \(invocation.arguments.map(quoted).joined(separator: " ")) in \(directory.path)")
        do {
            try process.run()
        } catch {
            Diagnostics.error("cannot start \(tool.path): \(error)")
            return
        }
        process.waitUntilExit()
        let status = process.terminationStatus
        switch process.terminationReason {
        case .uncaughtSignal:
            Diagnostics.error("\(toolName) was stopped by signal \(status)")
        case .exit where status != 0:
            Diagnostics.error(ExitStatus.meaning(of: status, subcommand: invocation.arguments.first))
        default:
            break
        }
    }

    /// The WarmCache package this plugin was compiled from: the checkout a project resolved.
    static let checkout = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()

    /// The commit a checkout's HEAD names, also when HEAD is a branch (`ref: refs/heads/main`).
    static func commit(of folder: URL) -> Data? {
        let git = folder.appendingPathComponent(".git")
        guard let head = FileManager.default.contents(atPath: git.appendingPathComponent("HEAD").path),
              let text = String(data: head, encoding: .utf8), text.hasPrefix("ref: ") else { return nil }
        let ref = text.dropFirst(5).trimmingCharacters(in: .whitespacesAndNewlines)
        return FileManager.default.contents(atPath: git.appendingPathComponent(ref).path)
    }

    /// Builds `warm-cache` in release from a copy of ``checkout`` in `work` (once; later runs find
    /// it up to date in seconds) with `swift` (else `xcrun swift`), and returns it; `nil` after
    /// saying why not. Everything SwiftPM writes (the copy's Package.resolved too) stays in
    /// `work`, the one folder a plugin's sandbox lets it write.
    static func buildFromCheckout(into work: URL, swift: URL?) -> URL? {
        let source = work.appendingPathComponent("warm-cache-source")
        let scratch = work.appendingPathComponent("warm-cache-build")
        do {
            // A new copy only for another version of the checkout (its commit, or its manifest):
            // a copy's new file dates would make the next build start over.
            let stamp = { (folder: URL) in ["Package.swift", ".git/HEAD"].map {
                FileManager.default.contents(atPath: folder.appendingPathComponent($0).path)
            } + [commit(of: folder)] }
            if stamp(source) != stamp(checkout) {
                try? FileManager.default.removeItem(at: source)
                try CheckoutCopy.copy(checkout, to: source)
            }
        } catch {
            Diagnostics.error("cannot copy \(checkout.path) into \(source.path) to build \(toolName): \(error.localizedDescription)")
            return nil
        }
        let arguments = ["build", "-c", "release", "--product", toolName,
                         "--package-path", source.path, "--scratch-path", scratch.path,
                         "--cache-path", work.appendingPathComponent("swiftpm-cache").path,
                         "--config-path", work.appendingPathComponent("swiftpm-config").path,
                         "--security-path", work.appendingPathComponent("swiftpm-security").path,
                         "--disable-sandbox"]
        let searched = ToolLocation.folders(path: ProcessInfo.processInfo.environment["PATH"], home: NSHomeDirectory())
        Diagnostics.remark("no \(toolName) in \(searched.joined(separator: ", ")): building it from \(checkout.path) "
            + "into \(scratch.path), once")
        let process = Process()
        process.executableURL = swift ?? URL(fileURLWithPath: "/usr/bin/xcrun")
        process.arguments = (swift == nil ? ["swift"] : []) + arguments
        process.standardInput = FileHandle.nullDevice
        // pkg-config (Homebrew's pkgconf) finds libvips for SwiftPM: Homebrew's folders first.
        var environment = ProcessInfo.processInfo.environment
        // The SDKs of the Xcode whose swift this is, not of whichever one xcode-select names.
        if let swift, let range = swift.path.range(of: "/Contents/Developer/") {
            environment["DEVELOPER_DIR"] = String(swift.path[..<range.upperBound].dropLast())
        }
        environment["PATH"] = (["/opt/homebrew/bin", "/usr/local/bin"] + [environment["PATH"] ?? "/usr/bin:/bin"])
            .joined(separator: ":")
        process.environment = environment
        do {
            try process.run()
            process.waitUntilExit()
        } catch {
            Diagnostics.error("cannot start \(process.executableURL?.path ?? "swift") to build \(toolName): \(error.localizedDescription)")
            return nil
        }
        let tool = scratch.appendingPathComponent("release").appendingPathComponent(toolName)
        guard process.terminationStatus == 0, FileManager.default.isExecutableFile(atPath: tool.path) else {
            Diagnostics.error("""
                building \(toolName) failed (its errors are above); install it instead: `brew install vips pkgconf \
                jpeg-turbo webp libavif`, then `swift build -c release --product \(toolName)` in a WarmCache checkout \
                and copy .build/release/\(toolName) to /opt/homebrew/bin or /usr/local/bin
                """)
            return nil
        }
        return tool
    }

    private static func quoted(_ argument: String) -> String {
        let plain = argument.allSatisfy { $0.isLetter || $0.isNumber || "-_./=:,@+".contains($0) }
        return plain && !argument.isEmpty ? argument : "'" + argument.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }
}
