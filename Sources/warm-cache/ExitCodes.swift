import ArgumentParser

/// The documented exit codes (see `warm-cache --help` and the README).
enum ExitCodes {
    static let problemsFound = ExitCode(2)
    static let someSourcesFailed = ExitCode(3)
    static let nothingWritten = ExitCode(4)
    static let invalidManifest = ExitCode(65)
    static let locked = ExitCode(75)
}
