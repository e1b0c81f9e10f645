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
        guard let tool = buildTool() else { return }
        ToolRun.run(tool, invocation, in: package.directoryURL)
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
            Diagnostics.error("building \(ToolRun.toolName) failed; the compiler's errors are printed above")
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

/// In an Xcode project (File > Packages, or the project's context menu): the same conventions,
/// from the project directory. Xcode offers no build service to command plugins, so the tool is
/// `warm-cache` from the PATH (install it with `swift build -c release --product warm-cache`).
extension WarmCachePlugin: XcodeCommandPlugin {
    func performCommand(context: XcodePluginContext, arguments: [String]) throws {
        let directory = context.xcodeProject.directoryURL
        let environment = Invocation.Environment(
            directory: directory, targetDirectory: { _ in nil },
            targetNames: context.xcodeProject.targets.map(\.displayName))
        guard let invocation = ToolRun.invocation(arguments, environment) else { return }
        guard let tool = ToolRun.toolOnPath() else {
            Diagnostics.error("""
                \(ToolRun.toolName) is not on the PATH; build it (swift build -c release --product \
                \(ToolRun.toolName) in a WarmCache checkout) and copy it to /usr/local/bin
                """)
            return
        }
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

    /// `warm-cache` in a directory of `PATH`.
    static func toolOnPath() -> URL? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin"
        return path.split(separator: ":").lazy
            .map { URL(fileURLWithPath: String($0)).appendingPathComponent(toolName) }
            .first { FileManager.default.isExecutableFile(atPath: $0.path) }
    }

    private static func quoted(_ argument: String) -> String {
        let plain = argument.allSatisfy { $0.isLetter || $0.isNumber || "-_./=:,@+".contains($0) }
        return plain && !argument.isEmpty ? argument : "'" + argument.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }
}
