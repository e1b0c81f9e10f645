import ArgumentParser
import Foundation
import WarmCacheBuilder

/// `warm-cache`: bakes remote images into an offline bundle at build time.
@main
struct WarmCacheCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "warm-cache",
        abstract: "Bake remote images into an offline, content-addressed bundle at build time.",
        discussion: ExitStatus.helpSection,
        subcommands: [WarmCommand.self, PlanCommand.self, MergeCommand.self, InspectCommand.self,
                      VerifyCommand.self, LookupCommand.self, PullCommand.self, KeygenCommand.self,
                      SignCommand.self, ImagingWorkerCommand.self],
        defaultSubcommand: WarmCommand.self)

    /// `warm-cache --version`, answered in ``main()`` when it is the only argument. Not the
    /// configuration's `version`, which ArgumentParser would honour after any subcommand too (and
    /// list in every subcommand's help): a subcommand given it is refused (``RootOnlyOptions``).
    @Flag(help: "Show the version.")
    var version = false

    /// Parses and runs the command, after catching a misspelt subcommand (with `warm` as the
    /// default, `warm-cache inspct X` would otherwise read `inspct` as a manifest path) and a
    /// subcommand given `--version` or a renamed option (``RootOnlyOptions``).
    static func main() async {
        let arguments = Array(CommandLine.arguments.dropFirst())
        if arguments == ["--version"] {
            Console.line(WarmCacheVersionText.text)
            return
        }
        if arguments.contains("--json") {
            Console.collectErrorsForJSON()
        }
        // The version with what this libvips encodes and decodes: probed only when asked for.
        if arguments == ["--version"] {
            print(WarmCacheVersionText.report)
            return
        }
        let names = configuration.subcommands.map { $0._commandName }
        let rootOnly = RootOnlyOptions.problem(in: arguments, subcommands: names,
                                               defaultCommand: WarmCommand.configuration.commandName ?? "warm")
        if let problem = misspeltSubcommand(arguments) ?? rootOnly {
            Console.error(problem)
            Console.jsonFailure(status: ExitCode.validationFailure.rawValue, message: problem)
            Foundation.exit(ExitCode.validationFailure.rawValue)
        }
        do {
            var command = try parseAsRoot(arguments)
            if var asyncCommand = command as? AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
        } catch {
            Console.jsonFailure(status: exitCode(for: error).rawValue, message: message(for: error))
            exit(withError: error)
        }
    }

    /// "unknown command 'inspct' (did you mean 'inspect'?)" when the first argument is no
    /// subcommand, no option, no existing file, and close to a subcommand's name.
    static func misspeltSubcommand(_ arguments: [String]) -> String? {
        guard let first = arguments.first, !first.hasPrefix("-"), !first.contains("/"), !first.contains("."),
              !FileManager.default.fileExists(atPath: first) else { return nil }
        let names = configuration.subcommands.map { $0._commandName } + ["help"]
        guard !names.contains(first), let closest = ManifestSuggestions.closest(to: first, in: names) else { return nil }
        return "unknown command '\(first)' (did you mean '\(closest)'?); run 'warm-cache --help' for the list"
    }
}
