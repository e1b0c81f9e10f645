import Foundation
import WarmCache

/// The result of checking a bundle against its own index.
public struct VerificationReport: Sendable, Codable {
    public struct Problem: Sendable, Codable, CustomStringConvertible {
        public enum Kind: String, Sendable, Codable {
            case indexIntegrity, missingBlob, sizeMismatch, hashMismatch, orphanBlob, badKey, unknownFormat
            /// A row that breaks the format's rules for untrusted input (lookups skip it).
            case invalidRow
            /// The signed statement (`statement.json`) is missing, unsigned by a given key, names
            /// another index or has expired (checked by `warm-cache verify`).
            case statement
            /// A file a killed run left in the bundle folder (its staging folder, a half-written
            /// index or statement): not part of the bundle, but an app copying the folder ships it.
            case leftover
        }
        public var kind: Kind
        /// The file or key concerned.
        public var subject: String
        public var detail: String
        /// For a damaged or missing blob: the sources whose variants use it.
        public var sources: [String]?
        /// For a damaged or missing blob: the cache keys of the variants that use it.
        public var cacheKeys: [String]?
        /// What to do about it.
        public var repair: String?

        public init(kind: Kind, subject: String, detail: String, sources: [String]? = nil, cacheKeys: [String]? = nil,
                    repair: String? = nil) {
            self.kind = kind
            self.subject = subject
            self.detail = detail
            self.sources = sources
            self.cacheKeys = cacheKeys
            self.repair = repair
        }

        public var description: String {
            // The kind is for programs (JSON); people read the file and what is wrong with it.
            var text = "\(subject): \(detail)"
            if let cacheKeys, !cacheKeys.isEmpty {
                let shown = cacheKeys.prefix(5).joined(separator: ", ")
                let owners = sources ?? []
                text += "; used by \(CountText.of(cacheKeys.count, "variant"))"
                    + (owners.isEmpty ? "" : " of \(CountText.noun("source", count: owners.count)) \(owners.joined(separator: ", "))")
                    + ": \(shown)"
                    + (cacheKeys.count > 5 ? ", …" : "")
            }
            if let repair { text += ". \(repair)" }
            return text
        }
    }

    /// How a damaged or missing blob is repaired.
    public static let blobRepair = "Run warm-cache warm with the bundle's manifest: it checks every blob it reuses "
        + "and writes damaged or missing ones again"

    public var path: String
    public var variantsChecked: Int
    public var blobsChecked: Int
    public var bytesHashed: Int
    /// Problems that make the bundle wrong, and files that are no part of it but that an app
    /// copying the folder would ship (what a killed run left: unlisted blobs, its staging folder).
    public var problems: [Problem]
    /// Findings that need no action (the signed statement's, for instance).
    public var warnings: [Problem]

    public var isValid: Bool { problems.isEmpty }

    package init(path: String, variantsChecked: Int, blobsChecked: Int, bytesHashed: Int, problems: [Problem],
                 warnings: [Problem]) {
        self.path = path
        self.variantsChecked = variantsChecked
        self.blobsChecked = blobsChecked
        self.bytesHashed = bytesHashed
        self.problems = problems
        self.warnings = warnings
    }
}

/// Re-hashes every blob and checks the index: keys parse and match their columns, every listed
/// blob exists with its size and hash, SQLite's integrity check passes.
public struct BundleVerifier {
    public let bundleURL: URL

    public init(bundleURL: URL) {
        self.bundleURL = bundleURL
    }

    public func verify() throws -> VerificationReport {
        let bundle = try CacheBundle(contentsOf: bundleURL)
        var report = VerificationReport(path: bundleURL.path, variantsChecked: 0, blobsChecked: 0, bytesHashed: 0,
                                        problems: [], warnings: [])
        var blobs: [String: (ImageFormat, Int)] = [:]
        var users: [String: (sources: Set<String>, keys: [String])] = [:]
        for problem in try bundle.indexProblems() {
            report.problems.append(.init(kind: .invalidRow, subject: "\(problem.table) \(problem.row)",
                                         detail: problem.column.isEmpty ? problem.detail
                                             : "\(problem.column) \(problem.detail)",
                                         repair: "lookups skip this row; bake the bundle again with warm-cache warm"))
        }
        typealias S = IndexSchema.Sources
        typealias V = IndexSchema.Variants
        try bundle.query { connection in
            let integrity = try connection.statement("PRAGMA integrity_check")
            while try integrity.step() {
                let line = integrity.text("integrity_check")
                if line != "ok" {
                    report.problems.append(.init(kind: .indexIntegrity, subject: BundleFormat.indexFileName,
                                                 detail: line))
                }
            }
            let rows = try connection.statement("""
                SELECT v.\(V.cacheKey), s.\(S.source), v.\(V.format), v.\(V.byteCount), v.\(V.blobSHA256),
                    v.\(V.pixelWidth), v.\(V.pixelHeight)
                FROM \(V.table) v JOIN \(S.table) s ON s.\(S.id) = v.\(V.sourceID)
                """)
            while try rows.step() {
                report.variantsChecked += 1
                let cacheKey = rows.text(V.cacheKey)
                guard let format = ImageFormat(rawValue: rows.text(V.format)) else {
                    report.problems.append(.init(kind: .unknownFormat, subject: cacheKey,
                                                 detail: "unknown image format '\(rows.text(V.format))' (a newer WarmCache wrote it?)"))
                    continue
                }
                if let key = VariantKey(parsing: cacheKey) {
                    if key.source.rawValue != rows.text(S.source) || key.spec.format != format {
                        report.problems.append(.init(kind: .badKey, subject: cacheKey,
                                                     detail: "key does not match its source or format columns"))
                    }
                } else {
                    report.problems.append(.init(kind: .badKey, subject: cacheKey, detail: "not a canonical key"))
                }
                let sha256 = rows.text(V.blobSHA256)
                guard IndexValidation.isBlobHash(sha256) else { continue }  // reported as an invalid row
                blobs[sha256] = (format, rows.int(V.byteCount))
                users[sha256, default: ([], [])].sources.insert(rows.text(S.source))
                users[sha256, default: ([], [])].keys.append(cacheKey)
            }
        }
        for (sha256, (format, byteCount)) in blobs.sorted(by: { $0.key < $1.key }) {
            let path = BundleFormat.objectPath(sha256: sha256, format: format)
            report.blobsChecked += 1
            func damaged(_ kind: VerificationReport.Problem.Kind, _ detail: String) -> VerificationReport.Problem {
                let user = users[sha256]
                return .init(kind: kind, subject: path, detail: detail, sources: user.map { $0.sources.sorted() },
                             cacheKeys: user?.keys.sorted(), repair: VerificationReport.blobRepair)
            }
            guard let data = try? Data(contentsOf: bundleURL.appendingPathComponent(path), options: .mappedIfSafe) else {
                report.problems.append(damaged(.missingBlob, "missing: listed in the index, not on disk"))
                continue
            }
            report.bytesHashed += data.count
            if data.count != byteCount {
                report.problems.append(damaged(.sizeMismatch, "damaged: the index says \(byteCount) bytes, the file has \(data.count)"))
            }
            let actual = ContentHash.sha256(data)
            if actual != sha256 {
                report.problems.append(damaged(.hashMismatch, "damaged: its content hashes to \(actual), not to its name"))
            }
        }
        let referenced = Set(blobs.map { BundleFormat.objectPath(sha256: $0.key, format: $0.value.0) })
        // The updater keeps the blobs of the version it replaced, on purpose: they are no orphans.
        let kept = ObjectStore.keptFileNames(in: bundleURL)
        for orphan in listObjects().subtracting(referenced).sorted()
            where !kept.contains((orphan as NSString).lastPathComponent) {
            report.problems.append(.init(kind: .orphanBlob, subject: orphan,
                                         detail: "not listed in the index: left by a run that was killed; an app that "
                                             + "copies this folder ships it",
                                         repair: "run warm-cache warm on this bundle again (or let the next update a "
                                             + "pull installs), which removes it, or delete it"))
        }
        report.problems += leftovers()
        return report
    }

    /// What a killed run (`kill -9`, a crash, a power cut) left at the top of the bundle folder.
    private func leftovers() -> [VerificationReport.Problem] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: bundleURL.path)) ?? []
        return names.sorted().filter(BundleWriter.isLeftover).map { name in
            VerificationReport.Problem(
                kind: .leftover, subject: name,
                detail: "left by a run that was killed; it is not part of the bundle, but an app that copies this folder ships it",
                repair: "run warm-cache warm (or merge) on this bundle again, which removes it, or delete it")
        }
    }

    private func listObjects() -> Set<String> {
        let objects = bundleURL.appendingPathComponent(BundleFormat.objectsDirectoryName)
        let fileManager = FileManager.default
        var paths = Set<String>()
        for fanout in (try? fileManager.contentsOfDirectory(atPath: objects.path)) ?? [] {
            for name in (try? fileManager.contentsOfDirectory(atPath: objects.appendingPathComponent(fanout).path)) ?? [] {
                paths.insert("\(BundleFormat.objectsDirectoryName)/\(fanout)/\(name)")
            }
        }
        return paths
    }
}
