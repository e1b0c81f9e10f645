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

    func run() throws {
        let status = ImagingWorker.serve()
        if status != 0 { throw ExitCode(status) }
    }
}
