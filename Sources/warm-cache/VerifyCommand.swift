import ArgumentParser
import Foundation
import WarmCache
import WarmCacheBuilder
import WarmCacheUpdates

/// `warm-cache verify Images.warmcache`: re-hashes every blob and checks the index.
struct VerifyCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "verify",
        abstract: "Re-hash every blob and check the index and its signed statement; exit 2 on any problem.",
        discussion: """
            With --public-key, the bundle must carry a statement signed by that key (repeatable: any one of \
            them). Without it the signature is not checked. Either way a statement that names another index \
            or has expired is a problem: apps would refuse the bundle.
            """)

    @Argument(help: "The bundle directory (…/Name.warmcache).", completion: .directory)
    var bundle: String

    @Flag(help: "Print the result as JSON.")
    var json = false

    @OptionGroup var keys: PublicKeyOptions

    @OptionGroup var logging: QuietOption

    func run() throws {
        let bundleURL = URL(fileURLWithPath: bundle)
        var report: VerificationReport
        do {
            report = try BundleVerifier(bundleURL: bundleURL).verify()
        } catch let error as CacheBundleError where error.kind != .bundleNotFound {
            // A bundle whose index cannot be opened is a finding (exit 2), reported like the others.
            report = VerificationReport(path: bundleURL.path, variantsChecked: 0, blobsChecked: 0, bytesHashed: 0,
                                        problems: [.init(kind: .indexIntegrity, subject: BundleFormat.indexFileName,
                                                         detail: Console.bundleProblem(error))],
                                        warnings: [])
        } catch {
            try Console.failure(Console.bundleProblem(error), json: json)
            throw ExitCode.failure
        }
        // A damaged index is the problem to fix first: its statement is checked against it once it is whole.
        let indexDamaged = report.problems.contains { $0.kind == .indexIntegrity }
        let findings = StatementCheck.findings(for: bundleURL, trustedKeys: try keys.parsed(), indexDamaged: indexDamaged)
        report.add(findings)
        if json {
            try Console.json(VersionedJSON(VerificationJSON(report: report, signature: findings.signature),
                                           version: JSONVersion.verify))
        } else {
            for problem in report.problems {
                Console.error(problem.description)
            }
            for warning in report.warnings where !logging.quiet {
                Console.warning(warning.description)
            }
            if !logging.quiet {
                Console.line("\(report.isValid ? "OK" : "FAILED"): \(CountText.of(report.variantsChecked, "variant")), "
                    + "\(CountText.of(report.blobsChecked, "blob")) (\(Console.bytes(report.bytesHashed)) hashed), "
                    + "\(CountText.of(report.problems.count, "problem")), \(CountText.of(report.warnings.count, "warning"))")
                if let signature = findings.signature {
                    Console.line("  signed: version \(signature.version), key \(signature.keyID), expires \(signature.expiresAt)")
                }
            }
        }
        if !report.isValid {
            throw ExitCodes.problemsFound
        }
    }
}
