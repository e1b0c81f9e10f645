import Foundation
import WarmCache
import WarmCacheBuilder
import WarmCacheUpdates

/// What `inspect`, `verify`, `warm` and `merge` say about a bundle's signed statement
/// (`statement.json`), checked offline the way the updater checks it.
enum StatementCheck {
    /// `inspect --json`'s `statement` object.
    struct Summary: Encodable, Equatable {
        var version: Int64
        /// The key ids its signatures name (not checked here: `verify --public-key` does).
        var keyIDs: [String]
        var signedAt: String
        var expiresAt: String
        var expired: Bool
        /// Whether it names the bundle's `index.sqlite`; when not, sign again before publishing.
        var namesIndex: Bool
    }

    private static func statementURL(_ bundle: URL) -> URL {
        bundle.appendingPathComponent(BundleFormat.statementFileName)
    }

    /// The bundle's statement: `nil` when it has none, a message when it cannot be read.
    static func summary(of bundle: URL, now: Date = Date()) -> Result<Summary, StatementProblem>? {
        guard let data = FileManager.default.contents(atPath: statementURL(bundle).path) else { return nil }
        let signed: SignedStatement
        do {
            signed = try SignedStatement.readUnverified(data)
        } catch {
            return .failure(StatementProblem(description: "\(statementURL(bundle).path) is \(PlainReason.of(error))"))
        }
        let statement = signed.statement
        let index = try? IndexDigest(contentsOf: bundle.appendingPathComponent(BundleFormat.indexFileName))
        return .success(Summary(version: statement.version, keyIDs: signed.keyIDs,
                                signedAt: BundleStatement.timestamp(statement.signedAt),
                                expiresAt: BundleStatement.timestamp(statement.expiresAt),
                                expired: statement.isExpired(at: now), namesIndex: index == statement.index))
    }

    struct StatementProblem: Error, CustomStringConvertible {
        var description: String
    }

    /// `inspect`'s line about the signature.
    static func inspectLine(for bundle: URL) -> String {
        switch summary(of: bundle) {
        case nil:
            return "unsigned (no \(BundleFormat.statementFileName); `warm-cache sign` writes one)"
        case .failure(let problem):
            return "statement: \(problem)"
        case .success(let summary):
            return "signed: version \(summary.version), key \(summary.keyIDs.joined(separator: ", ")), "
                + "signed \(summary.signedAt), expires \(summary.expiresAt)"
                + (summary.expired ? " (EXPIRED: sign again)" : "")
                + (summary.namesIndex ? "" : " (names another index: sign again)")
        }
    }

    /// The warning `warm` and `merge` print when they wrote an index without signing it while an
    /// older statement stays beside it.
    static func staleStatement(in bundle: URL) -> String? {
        guard case .success(let summary) = summary(of: bundle), !summary.namesIndex else { return nil }
        return "\(statementURL(bundle).path) (version \(summary.version)) names the previous index: sign the "
            + "bundle again (--sign-key, WARM_CACHE_SIGNING_KEY or `warm-cache sign`), or apps refuse it"
    }

    /// `verify`'s findings: with `trustedKeys`, an unsigned bundle, a signature by another key or
    /// an altered statement are problems; without them the signature is not checked (a warning).
    /// Either way a statement that names another index, or has expired, is a problem.
    /// With `indexDamaged`, whether the statement names the index is not said (the index's own
    /// problem comes first: signing a damaged index again is no repair).
    static func findings(for bundle: URL, trustedKeys: [BundlePublicKey], indexDamaged: Bool = false, now: Date = Date())
        -> Findings
    {
        let subject = BundleFormat.statementFileName
        let repair = "Sign the bundle again: warm-cache sign \(bundle.path) --key FILE"
        func problem(_ detail: String) -> VerificationReport.Problem {
            VerificationReport.Problem(kind: .statement, subject: subject, detail: detail, repair: repair)
        }
        guard let data = FileManager.default.contents(atPath: statementURL(bundle).path) else {
            return Findings(problems: trustedKeys.isEmpty ? [] : [problem("missing: the bundle is not signed, apps refuse it")])
        }
        var problems: [VerificationReport.Problem] = []
        var warnings: [VerificationReport.Problem] = []
        let signed: SignedStatement
        do {
            if trustedKeys.isEmpty {
                signed = try SignedStatement.readUnverified(data)
                warnings.append(.init(kind: .statement, subject: subject,
                                      detail: "signature by key \(signed.keyIDs.joined(separator: ", ")) not checked",
                                      repair: "Give the public key: verify --public-key KEY"))
            } else {
                signed = try SignedStatement.verify(data, trustedKeys: trustedKeys)
            }
        } catch {
            return Findings(problems: [problem("\(PlainReason.of(error))")])
        }
        let statement = signed.statement
        let index = try? IndexDigest(contentsOf: bundle.appendingPathComponent(BundleFormat.indexFileName))
        if index != statement.index, !indexDamaged {
            problems.append(problem("names another index (\(statement.index)) than index.sqlite ("
                + (index.map(\.description) ?? "unreadable") + "); apps would refuse it"))
        }
        if statement.isExpired(at: now) {
            problems.append(problem("version \(statement.version) expired at \(BundleStatement.timestamp(statement.expiresAt))"))
        }
        return Findings(problems: problems, warnings: warnings,
                        signature: signed.verifiedBy.map { Signature(version: statement.version, keyID: $0,
                                                                    expiresAt: BundleStatement.timestamp(statement.expiresAt)) })
    }

    /// What ``findings(for:trustedKeys:indexDamaged:now:)`` found.
    struct Findings {
        var problems: [VerificationReport.Problem] = []
        var warnings: [VerificationReport.Problem] = []
        /// The statement's signature, when a trusted key (`--public-key`) verified it.
        var signature: Signature?
    }

    /// A statement whose signature a trusted key verified: `verify --json`'s `version`, `keyID`
    /// and `expiresAt` (the names `pull --json` gives them).
    struct Signature: Encodable, Equatable {
        /// The signed version.
        var version: Int64
        /// The id of the trusted key that verified it.
        var keyID: String
        /// When it expires, ISO 8601.
        var expiresAt: String
    }
}

/// `verify --json`: the report, with the verified signature's `version`, `keyID` and
/// `expiresAt` beside its keys when `--public-key` checked one.
struct VerificationJSON: Encodable {
    var report: VerificationReport
    var signature: StatementCheck.Signature?

    func encode(to encoder: Encoder) throws {
        try report.encode(to: encoder)
        try signature?.encode(to: encoder)
    }
}

/// `inspect --json`: the report, with the signed statement's summary under `statement`.
struct InspectionJSON<Report: Encodable>: Encodable {
    var report: Report
    var statement: StatementCheck.Summary?

    private enum Keys: String, CodingKey { case statement }

    func encode(to encoder: Encoder) throws {
        try report.encode(to: encoder)
        var container = encoder.container(keyedBy: Keys.self)
        try container.encodeIfPresent(statement, forKey: .statement)
    }
}

extension VerificationReport {
    /// Adds the problems and warnings of ``StatementCheck/findings(for:trustedKeys:indexDamaged:now:)``.
    mutating func add(_ findings: StatementCheck.Findings) {
        problems += findings.problems
        warnings += findings.warnings
    }
}
