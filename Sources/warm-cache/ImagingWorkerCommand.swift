import ArgumentParser
import Foundation
import WarmCache
import WarmCacheImaging

/// `warm-cache imaging-worker` (hidden): one of the imaging processes a warm starts. It reads
/// jobs on standard input and answers on standard output until its input closes; not for people.
struct ImagingWorkerCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "imaging-worker",
        abstract: "Serve a warm's imaging jobs on standard input and output (started by warm).",
        shouldDisplay: false)

    /// How a warm starts one: this executable with this command.
    static var command: [String] {
        [LibC.executablePath, configuration.commandName ?? "imaging-worker"]
    }

    /// Lets SIGINT and SIGTERM end this process at once. A process inherits ignored signals and
    /// its starting thread's blocked ones: a warm that catches Ctrl-C (``Interruption``) ignores
    /// them, and its threads may block them, so without this a Ctrl-C to the terminal's process
    /// group would leave a worker encoding until its input closed.
    static func restoreInterruptSignals() {
        var set = sigset_t()
        sigemptyset(&set)
        for number in [SIGINT, SIGTERM] {
            signal(number, SIG_DFL)
            sigaddset(&set, number)
        }
        sigprocmask(SIG_UNBLOCK, &set, nil)
    }

    func run() throws {
        Self.restoreInterruptSignals()
        let status = ImagingWorker.serve()
        if status != 0 { throw ExitCode(status) }
    }
}
