import ArgumentParser
import Foundation
import WarmCacheBuilder

/// `warm-cache verify Images.warmcache`: re-hashes every blob and checks the index.
struct VerifyCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "verify",
        abstract: "Re-hash every blob and check the index; exit 2 on any problem.")

    @Argument(help: "The bundle directory (…/Name.warmcache).", completion: .directory)
    var bundle: String

    @Flag(help: "Print the result as JSON.")
    var json = false

    func run() throws {
        let report: VerificationReport
        do {
            report = try BundleVerifier(bundleURL: URL(fileURLWithPath: bundle)).verify()
        } catch {
            Console.error("\(error)")
            throw ExitCode.failure
        }
        if json {
            try Console.json(report)
        } else {
            for problem in report.problems {
                Console.error(problem.description)
            }
            for warning in report.warnings {
                Console.warning(warning.description)
            }
            Console.line("\(report.isValid ? "OK" : "FAILED"): \(report.variantsChecked) variants, "
                + "\(report.blobsChecked) blobs (\(Console.bytes(report.bytesHashed)) hashed), "
                + "\(report.problems.count) problems, \(report.warnings.count) warnings")
        }
        if !report.isValid {
            throw ExitCodes.problemsFound
        }
    }
}
