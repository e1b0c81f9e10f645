import ArgumentParser

/// The documented exit codes (see `warm-cache --help` and the README).
enum ExitCodes {
    static let problemsFound = ExitCode(2)
    static let someSourcesFailed = ExitCode(3)
    static let nothingWritten = ExitCode(4)
    /// `pull`: the update source failed or served something invalid; the local bundle is unchanged.
    static let updateSourceFailed = ExitCode(5)
    /// `pull`: the update was refused by a signed-update check (signature, index, rollback, version
    /// or expiry); the local bundle is unchanged.
    static let updateRefused = ExitCode(6)
    /// `warm`: the bundle would weigh more than its `budget`; nothing was published.
    static let overBudget = ExitCode(7)
    static let invalidManifest = ExitCode(65)
    static let locked = ExitCode(75)
}
