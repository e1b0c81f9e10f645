import Foundation
import AsyncHTTPClient
import NIOCore
import Testing
import WarmCache
import WarmCacheLoading
@testable import WarmCacheBuilder
@testable import WarmCacheImaging
import WarmCacheTestSupport
import WarmCacheUpdates

/// Every error a user can read is one plain line: no Foundation, NIO, AsyncHTTPClient or libvips
/// type names, no error domains or codes, no enum case names. This walks every error type of every
/// target (each case of each `Kind`), renders it as a user sees it, and looks for those leaks; it
/// fails when an error type or a case is added without being walked here.
@Suite struct ErrorMessageLeakTests {
    // MARK: What a leak looks like

    static var leaks: [(name: String, pattern: Regex<Substring>)] { [
        ("an error domain", /Error Domain|ErrorDomain/),
        ("a Foundation error type", /\bNS[A-Z][A-Za-z]*Error\b|\bCocoaError\b|\bPOSIXError\b|\bURLError\b/),
        ("an error code", /Code=|\berror -?\d{2,}\b|\berrno\b/),
        ("an AsyncHTTPClient type", /HTTPClientError/),
        ("a NIO type", /\bNIO[A-Za-z]*|\bIOError\b|\bChannelError\b/),
        ("a libvips type", /\bVips[A-Z]/),
        ("a case name with a colon or a parenthesis", /\b[a-z]+(?:[A-Z][a-z0-9]*)+[:(]/),
        ("an optional's dump", /Optional\(|\bnil\b/),
        ("a value's dump", /\b[A-Z][A-Za-z]+\((?:kind|url|code):/),
    ] }

    static func problems(in message: String, allowLines: Bool = false) -> [String] {
        var found: [String] = []
        if !allowLines, message.contains("\n") { found.append("more than one line") }
        if message.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty { found.append("empty") }
        for (name, pattern) in leaks {
            if let match = message.firstMatch(of: pattern) { found.append("\(name) ('\(match.output)')") }
        }
        return found
    }

    // MARK: The samples

    struct Sample {
        /// `File.swift:TypeName`, as ``errorTypesInSources()`` names it.
        var type: String
        /// The case of its `Kind` (or of the enum itself), when it has one.
        var kind: String?
        var message: String
    }

    /// The case name of an enum value, payload or not.
    static func caseName(_ value: Any) -> String {
        Mirror(reflecting: value).children.first?.label ?? String(describing: value)
    }

    static let web = URL(string: "https://cdn.example.com/photos/a.jpg")!
    static let bundle = URL(fileURLWithPath: "/work/App/Resources/Images.warmcache")

    static func fetchSamples() -> [Sample] {
        let kinds: [FetchError.Kind] = [
            .httpStatus(404), .httpStatus(503), .tooLarge(limit: 100_000, declared: 112_525),
            .tooLarge(limit: 100_000, declared: nil), .truncated(expected: 5000, received: 1200),
            .notAnImage(sniffed: "HTML page", contentType: "image/jpeg"), .timeout(seconds: 30),
            .connection(Downloader.plainReason(ChannelError.ioOnClosedChannel)),
            .cannotConnect(host: "cdn.example.com:443", reason: "connection refused (nothing listens on that port)"),
            .connectTimeout(host: "cdn.example.com:443", seconds: 5), .noResponse(host: "cdn.example.com:443", seconds: 30),
            .proxy("the proxy 127.0.0.1:3128 answered 407 Proxy Authentication Required"),
            .tooManyRedirects(limit: 5, loop: false), .tooManyRedirects(limit: 5, loop: true),
            .forbiddenRedirect(scheme: "ftp", location: "ftp://cdn.example.com/a.jpg"), .invalidRedirect(location: nil),
            .invalidRedirect(location: "http://[bad"), .unsupportedScheme("ftp"),
            .fileSystem(PlainReason.of(CocoaError(.fileWriteOutOfSpace))), .invalidHeader(name: "X-Token"), .shutDown,
        ]
        return kinds.map { Sample(type: "FetchError.swift:FetchError", kind: caseName($0),
                                  message: FetchError(url: web, kind: $0, attempts: 3, bytesReceived: 10).description) }
    }

    static func updateSamples() -> [Sample] {
        let index = URL(string: "https://updates.example.com/v1/index.sqlite")!
        let kinds: [BundleUpdateError.Kind] = [
            .insecureURL, .noTrustedKeys, .unsigned, .notFound(status: 404), .invalidStatement, .untrustedKey(keyIDs: ["ab12cd34"]),
            .untrustedKey(keyIDs: []), .badSignature(keyID: "ab12cd34"), .indexMismatch(expected: "aa", actual: "bb"),
            .rollback(offered: 3, installed: 4), .versionReused(version: 4), .expired(at: Date(timeIntervalSince1970: 0)),
            .tooSlow(seconds: 600), .httpStatus(404), .redirectRefused(to: "https://elsewhere.example.com/"),
            .tooLarge(limit: 50_000_000), .truncated(expected: 100, received: 10),
            .hashMismatch(expected: "aa", actual: "bb"), .sizeMismatch(expected: 10, actual: 12), .invalidIndex,
            .unsupportedVersion(found: 3, supported: 1), .timedOut, .network, .busy, .fileSystem,
            .outOfSpace(needed: 2_500_000), .outOfSpace(needed: nil), .notABundle,
        ]
        return kinds.map { kind in
            let local: Bool = switch kind {
            case .busy, .fileSystem, .outOfSpace, .notABundle: true
            default: false
            }
            let url = local ? bundle : index
            return Sample(type: "BundleUpdateError.swift:BundleUpdateError", kind: caseName(kind),
                          message: BundleUpdateError(kind, url: url, detail: kind == .fileSystem
                              ? "writing: " + PlainReason.of(CocoaError(.fileWriteOutOfSpace)) : "").description)
        }
    }

    static func runtimeSamples() -> [Sample] {
        let kinds: [CacheBundleError.Kind] = [
            .bundleNotFound, .notABundle, .corruptIndex, .unsupportedVersion(found: 3, supported: 1),
            .blobMissing(path: "objects/ab/abcd.webp"),
        ]
        var samples = kinds.map { Sample(type: "CacheBundleError.swift:CacheBundleError", kind: caseName($0),
                                         message: CacheBundleError($0, bundleURL: bundle, detail: "").description) }
        let problems: [IndexProblem.Kind] = [.wrongType, .invalidValue, .unknownValue, .danglingReference, .missingSchema]
        samples += problems.map { Sample(type: "IndexProblem.swift:IndexProblem", kind: caseName($0),
                                         message: IndexProblem($0, table: "variants", row: "k1", column: "bytes",
                                                               detail: "a size of 0 bytes").description) }
        // The views' loader: each reason as a view's failure phase would show it.
        let reasons: [ImageLoadingError.Reason] = [
            .notInBundle, .httpStatus(404), .unreachable("the connection was refused"),
            .undecodableBody(byteCount: 512, contentType: "text/html", detail: "it is not an image"),
            .undecodableBlob(path: "objects/ab/abcd.avif", detail: "the file is damaged"),
            .bundleUnreadable("the index cannot be read: the file is damaged"),
        ]
        samples += reasons.map { Sample(type: "ImageLoadingError.swift:ImageLoadingError", kind: caseName($0),
                                        message: ImageLoadingError(url: web, reason: $0).description) }
        samples.append(Sample(type: "SQLiteError.swift:SQLiteError", kind: nil,
                              message: SQLiteError(code: 11, message: "database disk image is malformed",
                                                   context: "reading the index").description))
        return samples
    }

    static func imagingSamples() throws -> [Sample] {
        // The libvips text is kept, without libvips' type and operation names.
        var samples = ImagingError.Kind.allCases.map { kind in
            Sample(type: "ImagingError.swift:ImagingError", kind: kind.rawValue,
                   message: ImagingError(kind, source: web.absoluteString, message: "the image data is truncated or corrupt",
                                         libvipsMessage: "VipsJpeg: Premature end of JPEG file\njpegload_buffer: out of order read")
                       .description)
        }
        // An SVG source is refused in words, not by its loader's name.
        let svg = Data(#"<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><rect width="10" height="10"/></svg>"#.utf8)
        do {
            _ = try SourceImages.engine.open(svg, name: "logo.svg")
            Issue.record("an SVG was accepted")
        } catch {
            #expect(error.message.contains("an SVG image, which WarmCache does not bake"), "\(error)")
            samples.append(Sample(type: "ImagingError.swift:ImagingError", kind: nil, message: error.description))
        }
        return samples
    }

    static func builderSamples() -> [Sample] {
        var samples: [Sample] = []
        let writerKinds: [BundleWriterError.Kind] = [.outputIsNotABundle, .inconsistentContents, .missingBlob, .fileSystem, .index]
        samples += writerKinds.map { Sample(type: "BundleWriterError.swift:BundleWriterError", kind: caseName($0),
                                            message: BundleWriterError($0, bundleURL: bundle, detail: "writing the index: "
                                                + PlainReason.of(CocoaError(.fileWriteNoPermission))).description) }
        let mergeKinds: [BundleMergeError.Kind] = [.unreadablePart, .incompatibleParts, .locked, .fileSystem,
                                                   .interrupted]
        samples += mergeKinds.map { Sample(type: "BundleMergeError.swift:BundleMergeError", kind: caseName($0),
                                           message: BundleMergeError($0, "cannot merge parts/p1.warmcache: "
                                               + PlainReason.of(POSIXError(.ENOENT))).description) }
        let warmKinds: [WarmError.Kind] = [.nothingWritten, .strictFailure, .locked, .engine, .fileSystem, .overBudget,
                                           .outOfSpace, .interrupted, .reportNotWritten]
        samples += warmKinds.map { Sample(type: "WarmError.swift:WarmError", kind: caseName($0),
                                          message: WarmError($0, "cannot write the report to /tmp/r.json: "
                                              + PlainReason.of(CocoaError(.fileNoSuchFile))).description) }
        let payload = BundlePayload(files: 3, bytes: 112_525, byFormat: [.init(name: "webp", variants: 3, files: 3, bytes: 112_525)],
                                    byPreset: [.init(name: "thumb", variants: 3, files: 3, bytes: 112_525)],
                                    largestSources: [.init(name: web.absoluteString, variants: 3, files: 3, bytes: 112_525)])
        samples.append(Sample(type: "BundlePayload.swift:BudgetExceeded", kind: nil,
                              message: BudgetExceeded(budget: 100_000, payload: payload, indexBytes: 8_192, bundlePath: bundle.path).description))
        samples.append(Sample(type: "ContactSheet.swift:ContactSheetError", kind: "cannotWrite",
                              message: ContactSheetError.cannotWrite("/tmp/sheet.html",
                                                                     reason: PlainReason.of(POSIXError(.EACCES))).description))
        samples.append(Sample(type: "Shard.swift:ShardError", kind: nil,
                              message: (Result { try Shard(parsing: "5/4") }.failureDescription) ?? "no error"))
        samples.append(Sample(type: "ProxyRoutes.swift:ParseError", kind: nil,
                              message: (Result { try ProxyServer(parsing: "socks5://127.0.0.1:1080", from: "HTTPS_PROXY") }
                                  .failureDescription) ?? "no error"))
        samples.append(Sample(type: "StagingFile.swift:FileSystemFailure", kind: nil,
                              message: FileSystemFailure("writing", "/tmp/.a.jpg.part", errno: ENOSPC).description))
        samples.append(Sample(type: "IndexBuilder.swift:IndexBuilderError", kind: "inconsistent",
                              message: IndexBuilderError.inconsistent("the variant key k1 is staged twice").description))
        samples.append(Sample(type: "DeferredRows.swift:Damaged", kind: nil,
                              message: DeferredRows.Damaged(path: "/tmp/rows").description))
        samples.append(Sample(type: "SourceRows.swift:Malformed", kind: nil, message: SourceRows.Malformed().description))
        let urlProblems: [ManifestURLCheck.Problem.Kind] = [
            .notAURL, .schemeRelative, .fileScheme, .unsupportedScheme("ftp"), .invalidCharacter(" "), .noHost,
            .portNotANumber("8o"), .portOutOfRange("99999"), .invalid,
        ]
        samples += urlProblems.map { Sample(type: "ManifestURLCheck.swift:Problem", kind: caseName($0),
                                            message: ManifestURLCheck.Problem(text: "https://cdn.example.com:99999/a.jpg", kind: $0)
                                                .message(advice: "use 'path:' for a local file")) }
        return samples
    }

    static func signingSamples() -> [Sample] {
        let kinds: [StatementError.Kind] = [.malformed, .newerFormat(3), .untrustedKey(keyIDs: ["ab12"]),
                                            .badSignature(keyID: "ab12")]
        var samples = kinds.map { Sample(type: "BundleStatement.swift:StatementError", kind: caseName($0),
                                         message: StatementError($0, "the field 'version' is missing").description) }
        samples.append(Sample(type: "SigningError.swift:SigningError", kind: nil,
                              message: SigningError("cannot read /tmp/key: " + PlainReason.of(POSIXError(.ENOENT))).description))
        return samples
    }

    /// A manifest with one of each kind of problem the loader reports, environment problems included.
    static func manifestSamples(in folder: URL) throws -> [Sample] {
        let manifest = folder.appendingPathComponent("manifest.yml")
        try """
            version: 1
            output: Build/Images.warmcache
            fetch:
              per_host: lots
              headers: { Authorization: "Bearer ${UNSET_TOKEN}", X-A: "${BROKEN" }
            presets:
              thumb: { widht: 64, height: 64, fit: cover, formats: [bmp] }
            images:
              - url: https://cdn.example.com:99999/a.jpg
                presets: [thumb, nosuch]
              - path: missing.png
                presets: [thumb]
            """.write(to: manifest, atomically: true, encoding: .utf8)
        let loaded = Result { try ManifestLoader(environment: [:]).load(contentsOf: manifest) }
        guard case .failure(let error) = loaded else {
            Issue.record("the broken manifest loaded")
            return []
        }
        let text = (error as? ManifestError)?.description ?? "not a ManifestError: \(error)"
        return text.split(separator: "\n").map {
            Sample(type: "ManifestError.swift:ManifestError", kind: nil, message: String($0))
        }
    }

    /// System errors as `PlainReason` renders them, as every message that quotes one does.
    static func plainReasonSamples() throws -> [Sample] {
        var errors: [any Error] = [
            CocoaError(.fileWriteUnknown), CocoaError(.fileNoSuchFile), CocoaError(.fileWriteOutOfSpace),
            POSIXError(.ENOTDIR), URLError(.cannotConnectToHost), NSError(domain: NSCocoaErrorDomain, code: 512),
            NSError(domain: NSCocoaErrorDomain, code: 512,
                    userInfo: [NSUnderlyingErrorKey: NSError(domain: NSPOSIXErrorDomain, code: Int(ENOTDIR))]),
        ]
        // A folder inside a regular file: "not a directory" on every system.
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("plain-\(UUID().uuidString)")
        try Data("x".utf8).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        do {
            try FileManager.default.createDirectory(at: file.appendingPathComponent("x"), withIntermediateDirectories: true)
        } catch { errors.append(error) }
        do {
            try Data("x".utf8).write(to: URL(fileURLWithPath: "/nonexistent-folder/report.json"))
        } catch { errors.append(error) }
        return errors.map { Sample(type: "PlainReason", kind: nil, message: "cannot write it: " + PlainReason.of($0)) }
    }

    // MARK: The checks

    @Test func noMessageLeaksATypeDomainCodeOrCaseName() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("leaks-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let samples = try Self.fetchSamples() + Self.updateSamples() + Self.runtimeSamples() + Self.imagingSamples()
            + Self.builderSamples() + Self.signingSamples() + Self.manifestSamples(in: folder) + Self.plainReasonSamples()
        for sample in samples {
            let found = Self.problems(in: sample.message)
            #expect(found.isEmpty, "\(sample.type) \(sample.kind ?? ""): \(found.joined(separator: ", ")) in: \(sample.message)")
        }
        // The HTTP stack's errors in the fetcher's words.
        let httpErrors: [any Error] = [
            HTTPClientError.remoteConnectionClosed, HTTPClientError.uncleanShutdown, HTTPClientError.bodyLengthMismatch,
            HTTPClientError.readTimeout, HTTPClientError.cancelled, HTTPClientError.invalidURL,
            HTTPClientError.redirectLimitReached, HTTPClientError.incompatibleHeaders, HTTPClientError.emptyHost,
            HTTPClientError.serverOfferedUnsupportedApplicationProtocol("h3"), HTTPClientError.invalidProxyResponse,
            ChannelError.ioOnClosedChannel, ChannelError.connectTimeout(.seconds(5)), ChannelError.eof,
            IOError(errnoCode: ECONNRESET, reason: "read"), IOError(errnoCode: ECONNREFUSED, reason: "connect"),
        ]
        for error in httpErrors {
            let text = Downloader.plainReason(error)
            #expect(Self.problems(in: text).isEmpty, "\(error) reads: \(text)")
        }
        #expect(Downloader.plainReason(HTTPClientError.remoteConnectionClosed)
                    == "the server closed the connection before the response was complete")
    }

    /// Every case of every walked `Kind` has a sample: a new case must be added here to pass.
    @Test func everyCaseOfEveryKindIsWalked() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("leaks-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let samples = try Self.fetchSamples() + Self.updateSamples() + Self.runtimeSamples() + Self.imagingSamples()
            + Self.builderSamples() + Self.signingSamples()
        let enums: [(type: String, file: String, enumName: String)] = [
            ("FetchError.swift:FetchError", "WarmCacheBuilder/FetchError.swift", "Kind"),
            ("BundleUpdateError.swift:BundleUpdateError", "WarmCacheUpdates/BundleUpdateError.swift", "Kind"),
            ("CacheBundleError.swift:CacheBundleError", "WarmCache/CacheBundleError.swift", "Kind"),
            ("IndexProblem.swift:IndexProblem", "WarmCache/IndexProblem.swift", "Kind"),
            ("ImagingError.swift:ImagingError", "WarmCacheImaging/ImagingError.swift", "Kind"),
            ("BundleWriterError.swift:BundleWriterError", "WarmCacheBuilder/BundleWriterError.swift", "Kind"),
            ("BundleMergeError.swift:BundleMergeError", "WarmCacheBuilder/BundleMergeError.swift", "Kind"),
            ("WarmError.swift:WarmError", "WarmCacheBuilder/WarmError.swift", "Kind"),
            ("ContactSheet.swift:ContactSheetError", "WarmCacheBuilder/ContactSheet.swift",
             "ContactSheetError"),
            ("IndexBuilder.swift:IndexBuilderError", "WarmCacheBuilder/IndexBuilder.swift", "IndexBuilderError"),
            ("ManifestURLCheck.swift:Problem", "WarmCacheBuilder/ManifestURLCheck.swift", "Kind"),
            ("BundleStatement.swift:StatementError", "WarmCacheUpdates/BundleStatement.swift", "Kind"),
            ("ImageLoadingError.swift:ImageLoadingError", "WarmCacheLoading/ImageLoadingError.swift", "Reason"),
        ]
        for (type, file, enumName) in enums {
            let declared = try SourceScan.caseNames(ofEnum: enumName, in: SourceScan.file(file))
            #expect(!declared.isEmpty, "no cases found for \(type)")
            let walked = Set(samples.filter { $0.type == type }.compactMap(\.kind))
            #expect(declared.subtracting(walked).isEmpty,
                    "\(type): cases not walked: \(declared.subtracting(walked).sorted()); add a sample")
        }
    }

    /// Errors that never reach a user as they are, each with where its words come from instead.
    static let notRenderedThemselves: [String: String] = [
        "BodyReceiver.swift:AttemptFailure": "becomes a FetchError of the same kind in the retry loop",
        "RequestCoalescer.swift:Restart": "control flow inside the coalescer",
        "TimeLimit.swift:TimeLimitExceeded": "becomes FetchError.Kind.timeout",
        "OriginalAcquirer.swift:Failure": "carries a SourceFailure made from a walked error",
        "SourceRenderer.swift:Failure": "carries a SourceFailure made from a walked error",
        "ImagingWire.swift:BrokenPipe": "the warm is gone; nothing is printed",
        "VipsCallError.swift:VipsCallError": "becomes an ImagingError (walked with libvips' text)",
        "MemoryIndex.swift:MemoryIndexTooLarge": "lookups fall back to SQLite; never thrown to callers",
        "MemoryIndex.swift:MemoryIndexUnordered": "lookups fall back to SQLite; never thrown to callers",
        "ManifestEnvironment.swift:Kind": "reported as a manifest diagnostic (walked through the loader)",
        "ManifestEnvironment.swift:ProblemList": "reported as manifest diagnostics (walked through the loader)",
        "ImageIODecoder.swift:Failure": "Apple platforms only (not compiled here); the loader reports it inside an "
            + "ImageLoadingError (walked), through PlainReason",
        "StatementCheck.swift:StatementProblem": "the CLI's; its words are StatementError's and PlainReason's, "
            + "and `verify` of a bad statement is checked in cliMessagesAreOnePlainLineEach",
    ]

    /// Every error type in Sources is walked above or listed with where its words come from.
    @Test func everyErrorTypeInSourcesIsWalked() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("leaks-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let walked = Set((try Self.fetchSamples() + Self.updateSamples() + Self.runtimeSamples() + Self.imagingSamples()
            + Self.builderSamples() + Self.signingSamples() + Self.manifestSamples(in: folder)).map(\.type))
        let found = try SourceScan.errorTypes()
        #expect(found.count > 20, "the scan found only \(found.sorted())")
        let unwalked = found.subtracting(walked).subtracting(Self.notRenderedThemselves.keys)
        #expect(unwalked.isEmpty, "error types not walked: \(unwalked.sorted()); add samples for them here")
        let stale = Set(Self.notRenderedThemselves.keys).union(walked).subtracting(found)
        #expect(stale.isEmpty, "walked or listed but no longer in Sources: \(stale.sorted())")
    }

    /// No message interpolates a system error as it is: `"\(error)"`, `error.localizedDescription`
    /// and `String(describing: error)` go through `PlainReason` (or the fetcher's own translation).
    @Test func noSourceInterpolatesARawError() throws {
        let raw = /\\\((error|underlying|err)\)|\\\((error|err)\.localizedDescription\)|String\(describing: error\)|detail: error\.localizedDescription|reason: error\.localizedDescription/
        var offenders: [String] = []
        for file in try SourceScan.swiftFiles() {
            let text = try String(contentsOf: file, encoding: .utf8)
            for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated()
            where line.contains(raw) && !line.contains("logger.") && !line.trimmingCharacters(in: .whitespaces).hasPrefix("//") {
                offenders.append("\(file.lastPathComponent):\(number + 1): \(line.trimmingCharacters(in: .whitespaces))")
            }
        }
        #expect(offenders.isEmpty, "\(offenders.joined(separator: "\n"))")
    }

    /// The command line's own failures (refusals, verify findings, a bad statement) through the real binary.
    @Test func cliMessagesAreOnePlainLineEach() async throws {
        try await withWorld(routes: ["/a.jpg": .status(404)]) { scratch, server in
            try scratch.write(Manifests.yaml(urls: [server.url("/a.jpg")]), to: "manifest.yml")
            try FileManager.default.createDirectory(at: scratch.path("Fake.warmcache"), withIntermediateDirectories: true)
            try Data("not sqlite".utf8).write(to: scratch.path("Fake.warmcache/index.sqlite"))
            try Data("{\"payload\": 1}".utf8).write(to: scratch.path("Fake.warmcache/statement.json"))
            let runs = [
                ["warm", "manifest.yml", "--cache-dir", "cache"],
                ["verify", "Fake.warmcache"],
                ["inspect", "Fake.warmcache"],
                ["lookup", "Fake.warmcache", "https://cdn.example.com/a.jpg", "--size", "10x10"],
                ["verify", "Missing.warmcache"],
                ["merge", "-o", "Out2/Images.warmcache", "Fake.warmcache"],
            ]
            for arguments in runs {
                let result = try await CLI.run(arguments, in: scratch.url)
                #expect(result.status != 0, "\(arguments): \(result)")
                for line in result.stderr.split(separator: "\n") where !line.hasPrefix("Usage:") && !line.isEmpty {
                    let found = Self.problems(in: String(line))
                    #expect(found.isEmpty, "warm-cache \(arguments.joined(separator: " ")): \(found) in: \(line)")
                }
            }
        }
    }
}

extension Result {
    var failureDescription: String? {
        if case .failure(let error) = self { return PlainReason.of(error) }
        return nil
    }
}

/// Reads the package's Sources, to hold the walk above to what is there.
enum SourceScan {
    static let sources = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Sources")

    static func swiftFiles() throws -> [URL] {
        let enumerator = FileManager.default.enumerator(at: sources, includingPropertiesForKeys: nil)
        return (enumerator?.allObjects as? [URL] ?? []).filter { $0.pathExtension == "swift" }.sorted { $0.path < $1.path }
    }

    /// `Target/Name.swift`: the file of that name in that target, in whichever of its folders it sits.
    static func file(_ targetAndName: String) throws -> URL {
        let target = targetAndName.split(separator: "/").first.map(String.init) ?? ""
        let name = (targetAndName as NSString).lastPathComponent
        let root = sources.appendingPathComponent(target).standardizedFileURL.path + "/"
        guard let file = try swiftFiles().first(where: {
            $0.lastPathComponent == name && $0.standardizedFileURL.path.hasPrefix(root)
        }) else {
            throw CocoaError(.fileNoSuchFile, userInfo: [NSFilePathErrorKey: targetAndName])
        }
        return file
    }

    /// `File.swift:Name` of every type that conforms to `Error` or `LocalizedError` where it is declared.
    static func errorTypes() throws -> Set<String> {
        let declaration = /(?:struct|enum|class|actor)\s+(\w+)(?:<[^>{]*>)?\s*:\s*([^{]+)\{/
        var found = Set<String>()
        for file in try swiftFiles() {
            let text = try String(contentsOf: file, encoding: .utf8)
            for match in text.matches(of: declaration) {
                let conformances = match.output.2.split(separator: ",").map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }
                if conformances.contains("Error") || conformances.contains("LocalizedError") || conformances.contains("Swift.Error") {
                    found.insert("\(file.lastPathComponent):\(match.output.1)")
                }
            }
        }
        return found
    }

    /// The case names of the first `enum <name>` in `file`.
    static func caseNames(ofEnum name: String, in file: URL) throws -> Set<String> {
        let lines = try String(contentsOf: file, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false)
        guard let start = lines.firstIndex(where: { $0.contains("enum \(name)") && $0.hasSuffix("{") }) else { return [] }
        let indent = lines[start].prefix { $0 == " " }
        var names = Set<String>()
        for line in lines[(start + 1)...] {
            if line == indent + "}" { break }
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            // Only the enum's own level: nested switches ("case .x:") are deeper and start with a dot.
            guard trimmed.hasPrefix("case "), !trimmed.hasPrefix("case ."), !trimmed.hasSuffix(":") else { continue }
            var depth = 0
            var current = ""
            for character in trimmed.dropFirst(5) {
                if character == "(" { depth += 1 }
                if character == ")" { depth -= 1 }
                if character == ",", depth == 0 {
                    names.insert(current); current = ""; continue
                }
                if depth == 0, character != ")" { current.append(character) }
            }
            names.insert(current)
        }
        return Set(names.map { name in
            String(name.trimmingCharacters(in: .whitespaces).prefix { $0.isLetter || $0.isNumber || $0 == "_" })
        }.filter { !$0.isEmpty })
    }
}
