/// Options that belong to `warm-cache` itself, and spellings that were renamed: caught before
/// ArgumentParser reads the command line, so that none of them is a silent no-op.
///
/// ArgumentParser honours the root command's `--version` anywhere in the line, so
/// `warm-cache sign B --key K --version 5` (the spelling `sign` had before `--sign-version`)
/// printed the tool's version and exited 0 without signing. Here `--version` is accepted alone
/// (`warm-cache --version`) and refused with a subcommand or its arguments:
///
/// ```
/// $ warm-cache sign Images.warmcache --key k --version 5
/// error: sign has no --version option: the signed version is --sign-version N (formerly --version); …
/// ```
enum RootOnlyOptions {
    /// A spelling a subcommand once had, and the one it has now.
    struct Renamed {
        var command: String
        var old: String
        var new: String
        /// What the new spelling means, for the message.
        var meaning: String
    }

    /// Every option spelling that was renamed. `sign --version` became `--sign-version` (as in
    /// `warm` and `merge`) when `--version` came to mean the tool's own version.
    static let renamed: [Renamed] = [
        Renamed(command: "sign", old: "--version", new: "--sign-version", meaning: "the signed version"),
    ]

    /// Commands whose statement version is `--sign-version` (and that a `--version N` probably meant).
    private static let signingCommands: Set = ["sign", "warm", "merge"]

    /// Why `arguments` (without the program name) cannot run, or `nil`.
    /// - Parameters:
    ///   - subcommands: the subcommands' names; the first argument names one, else `defaultCommand` runs.
    static func problem(in arguments: [String], subcommands: [String], defaultCommand: String) -> String? {
        let options = Array(arguments.prefix { $0 != "--" })
        let command = arguments.first.flatMap { subcommands.contains($0) ? $0 : nil } ?? defaultCommand
        for renamed in renamed where renamed.command == command {
            guard let index = options.firstIndex(where: { spells($0, renamed.old) }) else { continue }
            let value = value(of: index, in: options)
            return "\(command) has no \(renamed.old) option: \(renamed.meaning) is \(renamed.new) \(value ?? "N") "
                + "(formerly \(renamed.old))"
                + (renamed.old == "--version" ? "; `warm-cache --version` alone prints the tool's version" : "")
        }
        guard options.contains(where: { spells($0, "--version") }), arguments != ["--version"] else { return nil }
        let hint = signingCommands.contains(command) ? "; to sign with a version, write --sign-version N" : ""
        return "--version is warm-cache's own option, not \(command)'s: run `warm-cache --version` alone to print "
            + "the tool's version\(hint)"
    }

    /// Whether `argument` is `option`, alone or with `=value`.
    private static func spells(_ argument: String, _ option: String) -> Bool {
        argument == option || argument.hasPrefix(option + "=")
    }

    /// The value written with the option at `index` (`--version=5`, or `--version 5`), if any.
    private static func value(of index: Int, in options: [String]) -> String? {
        if let equals = options[index].firstIndex(of: "=") { return String(options[index][options[index].index(after: equals)...]) }
        let next = index + 1
        return next < options.count && !options[next].hasPrefix("-") ? options[next] : nil
    }
}
