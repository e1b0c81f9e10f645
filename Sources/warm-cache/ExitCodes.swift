import ArgumentParser

/// The documented exit statuses (``ExitStatus``) as ArgumentParser exit codes.
enum ExitCodes {
    static let problemsFound = code(.problemsFound)
    static let someSourcesFailed = code(.someSourcesFailed)
    static let nothingWritten = code(.nothingWritten)
    static let updateSourceFailed = code(.updateSourceFailed)
    static let updateRefused = code(.updateRefused)
    static let overBudget = code(.overBudget)
    static let invalidManifest = code(.invalidManifest)
    static let locked = code(.locked)

    private static func code(_ status: ExitStatus) -> ExitCode { ExitCode(status.rawValue) }
}
