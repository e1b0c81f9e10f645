/// The exit statuses `warm-cache` documents, and what each means: the one table behind the CLI's
/// `--help`, the statuses its commands exit with, and the SwiftPM plugin's error messages (the
/// plugin compiles this same file, through a link in `Plugins/WarmCachePlugin`, so the two cannot
/// disagree). Plain Swift, without imports, for that reason.
enum ExitStatus: Int32, CaseIterable {
    case failure = 1
    /// `verify` found problems; `lookup` found no image.
    case problemsFound = 2
    case someSourcesFailed = 3
    case nothingWritten = 4
    /// `pull`: the update source failed or served something invalid; the local bundle is unchanged.
    case updateSourceFailed = 5
    /// `pull`: a signed-update check (signature, index, rollback, version or expiry) refused the
    /// update; the local bundle is unchanged.
    case updateRefused = 6
    /// `warm`: the bundle would weigh more than its `budget`; nothing was published.
    case overBudget = 7
    case badCommandLine = 64
    case invalidManifest = 65
    /// Another run holds the output's lock.
    case locked = 75
    /// `warm`, `merge`, `pull`: Ctrl-C (SIGINT) stopped the run, which removed what it wrote.
    case interrupted = 130
    /// The same for SIGTERM.
    case terminated = 143

    /// The line `warm-cache --help` gives the status.
    var helpLine: String {
        switch self {
        case .failure: "error (manifest, bundle or signing key missing or unreadable, file system, libvips missing, …)"
        case .problemsFound: "verify found problems; lookup found no image"
        case .someSourcesFailed: "some sources failed; the bundle holds the others"
        case .nothingWritten: "nothing written (every source failed, or --strict and one failed)"
        case .updateSourceFailed: "pull: the update source failed or served something invalid (the local bundle is unchanged)"
        case .updateRefused: "pull: the update was refused by a signature, index, rollback, version or expiry check\n"
            + "      (the message names it; the local bundle is unchanged)"
        case .overBudget: "warm: the bundle would exceed its budget (nothing published; the largest contributors are named)"
        case .badCommandLine: "bad command line"
        case .invalidManifest: "invalid manifest (every problem is listed with file:line:column)"
        case .locked: "another run holds the output's lock (pull: another update of the directory is running)"
        case .interrupted: "interrupted by Ctrl-C (SIGINT): nothing changed, the run removed what it wrote"
        case .terminated: "stopped by SIGTERM: nothing changed, the run removed what it wrote"
        }
    }

    /// The "Exit codes" section of `warm-cache --help`.
    static var helpSection: String {
        "Exit codes:\n  0   success\n"
            + allCases.map { status in
                let code = String(status.rawValue)
                return "  " + code + String(repeating: " ", count: 4 - code.count) + status.helpLine
            }.joined(separator: "\n")
    }

    /// What a run of `subcommand` that exited with `status` means, as one sentence for someone who
    /// ran it through the plugin (the run's own messages are printed above it).
    static func meaning(of status: Int32, subcommand: String?) -> String {
        guard let known = ExitStatus(rawValue: status) else { return "warm-cache exited with status \(status)" }
        return switch known {
        case .failure: "warm-cache failed (exit 1); its error is printed above"
        case .problemsFound where subcommand == "lookup": "no image in the bundle for that source (exit 2)"
        case .problemsFound: "verify found problems in the bundle (exit 2)"
        case .someSourcesFailed: "some sources failed; the bundle was written with the others (exit 3)"
        case .nothingWritten: "nothing was written: every source failed, or --strict and one failed (exit 4)"
        case .updateSourceFailed: "the update source failed or served something invalid (exit 5); the local bundle is unchanged"
        case .updateRefused: "the update was refused by a signed-update check named above (exit 6); the local bundle is unchanged"
        case .overBudget: "the bundle would exceed its budget (exit 7); nothing was published"
        case .badCommandLine: "bad command line (exit 64); see swift package warm-cache --help"
        case .invalidManifest: "invalid manifest (exit 65); every problem is listed above with file:line:column"
        case .locked: "another run holds the output's lock (exit 75); try again when it has finished"
        case .interrupted: "interrupted by Ctrl-C (exit 130); nothing changed"
        case .terminated: "stopped by SIGTERM (exit 143); nothing changed"
        }
    }
}
