import Foundation
import Testing
@testable import WarmCache
import WarmCacheBuilder

/// The reader treats the index as untrusted input: real indexes, mutated the ways a damaged or
/// hostile file can be (wrong types, NULLs, huge and negative numbers, traversal strings in hashes,
/// broken keys, dropped tables, truncated and scribbled files), never crash the library, never
/// make it hand out a path outside the bundle's objects, and get named by `indexProblems()`.
@Suite("Untrusted indexes")
struct UntrustedIndexTests {
    static let sources = ["https://cdn.example.com/a.jpg", "https://cdn.example.com/b.jpg", "asset://c|d%"]

    /// The mutations, as SQL run on a copy of a real index. `%KEY%` is a random existing cache key.
    static let mutations: [String] = {
        let hostileHashes = ["'../../../../etc/passwd'", "'/etc/passwd'", "upper(blob_sha256)", "substr(blob_sha256, 2)",
                             "blob_sha256 || 'aa'", "'..' || substr(blob_sha256, 3)", "NULL", "42", "x'00ff'",
                             "replace(blob_sha256, substr(blob_sha256, 1, 1), '/')", "'" + String(repeating: "g", count: 64) + "'"]
        var sql = hostileHashes.map { "UPDATE variants SET blob_sha256 = \($0) WHERE cache_key = '%KEY%'" }
        let columns = ["pixel_width", "pixel_height", "byte_count", "has_alpha", "source_id", "fit", "format",
                       "processors", "cache_key"]
        let values = ["NULL", "0", "-1", "9223372036854775807", "-9223372036854775808", "1.5", "'12'", "x'01'",
                      "'jpeg'", "'../x'", "''", "'avif2'", "2", "1e300"]
        for column in columns {
            for value in values {
                sql.append("UPDATE variants SET \(column) = \(value) WHERE cache_key = '%KEY%'")
            }
        }
        sql += [
            "UPDATE sources SET source = NULL",
            "UPDATE sources SET source = 'https://cdn.example.com/b.jpg' WHERE id = 1",
            "UPDATE variants SET source_id = 1",
            "UPDATE variants SET format = 'jpeg', byte_count = byte_count + 1",
            "DELETE FROM sources",
            "DROP TABLE variant_presets",
            "DROP TABLE variants",
            "DROP TABLE placeholders",
            "ALTER TABLE variants DROP COLUMN has_alpha",
            "UPDATE meta SET value = 'x' WHERE key = 'format_major'",
            "UPDATE meta SET value = NULL WHERE key = 'format_major'",
            "DELETE FROM meta",
            "UPDATE placeholders SET thumbhash = 'text', average_color = 12, blurhash = x'00'",
            "INSERT INTO variant_presets VALUES ('card', 'no such key')",
            "INSERT INTO variants SELECT 'evil|' || cache_key, source_id, width_pt, height_pt, scale, fit, gravity, "
                + "background, upscale, format, quality, options, processors, pixel_width, pixel_height, byte_count, "
                + "'../../../../../../../../etc/passwd', has_alpha FROM variants",
            "PRAGMA application_id = 7",
        ]
        return sql
    }()

    @Test("mutated indexes: no crash, no path outside objects/, problems named")
    func fuzz() throws {
        let root = try BundleFixtures.temporaryDirectory("untrusted")
        defer { try? FileManager.default.removeItem(at: root) }
        let original = root.appendingPathComponent("Original.warmcache")
        let written = try BundleFixtures.write(to: original, sources: Self.sources)
        let keys = written.contents.variants.map(\.key.rawValue)
        let pristine = try Data(contentsOf: original.appendingPathComponent("index.sqlite"))

        var random = SystemRandomNumberGenerator()
        var iterations = 0
        var refused = 0
        var rejectedAtOpen = 0
        var problemsNamed = 0
        // The schema's NOT NULL and key constraints stop some values; a hostile file need not have
        // them, so every mutation also runs on a copy whose tables were rebuilt without constraints.
        let loosen = """
            ALTER TABLE variants RENAME TO variants_strict;
            CREATE TABLE variants AS SELECT * FROM variants_strict; DROP TABLE variants_strict;
            ALTER TABLE sources RENAME TO sources_strict;
            CREATE TABLE sources AS SELECT * FROM sources_strict; DROP TABLE sources_strict;
            """
        var cases: [(String, (URL) throws -> Void)] = []
        for statement in Self.mutations {
            for loose in [false, true] {
                let key = keys.randomElement(using: &random)!
                let sql = statement.replacingOccurrences(of: "%KEY%", with: key.replacingOccurrences(of: "'", with: "''"))
                cases.append(((loose ? "[no constraints] " : "") + sql, { index in
                    let connection = try SQLiteConnection(path: index.path, readOnly: false)
                    if loose { try connection.execute(loosen) }
                    try connection.execute(sql)
                }))
            }
        }
        for _ in 0..<60 {
            let length = Int.random(in: 0..<pristine.count, using: &random)
            cases.append(("truncate to \(length) bytes", { index in try pristine.prefix(length).write(to: index) }))
        }
        for _ in 0..<120 {
            var bytes = pristine
            let flips = Int.random(in: 1...16, using: &random)
            for _ in 0..<flips {
                let at = Int.random(in: 100..<bytes.count, using: &random)
                bytes[at] = UInt8.random(in: 0...255, using: &random)
            }
            cases.append(("\(flips) random bytes scribbled", { index in try bytes.write(to: index) }))
        }

        for (label, mutate) in cases {
            iterations += 1
            let bundleURL = root.appendingPathComponent("case-\(iterations).warmcache")
            try FileManager.default.createDirectory(at: bundleURL, withIntermediateDirectories: true)
            try FileManager.default.createSymbolicLink(at: bundleURL.appendingPathComponent("objects"),
                                                       withDestinationURL: original.appendingPathComponent("objects"))
            let index = bundleURL.appendingPathComponent("index.sqlite")
            try pristine.write(to: index)
            do {
                try mutate(index)
            } catch {
                refused += 1  // SQLite itself refused the change (a constraint): nothing to read
                continue
            }

            let bundle: CacheBundle
            do {
                bundle = try CacheBundle(contentsOf: bundleURL)
            } catch let error as CacheBundleError {
                rejectedAtOpen += 1
                #expect(!error.description.isEmpty, "\(label)")
                continue
            }
            // Lookups answer from the in-memory copy of the index; a reader without one must agree
            // on every index SQLite can read (in a scribbled file, a scan and a key search can meet
            // different damage, so only the rules above are checked there).
            _ = bundle.prepareMemoryIndex()
            let comparable = !label.contains("scribbled") && !label.hasPrefix("truncate")
            let sqliteOnly = try CacheBundle(contentsOf: bundleURL, configuration: .init(memoryIndex: false))
            var answers: [CachedImage] = []
            for source in Self.sources + ["https://cdn.example.com/A.jpg#x"] {
                for scale in [1.0, 2, 3] {
                    for filter in [ProcessorFilter.any, .unprocessed] {
                        for preset in [nil, "card"] {
                            let hit = try? bundle.bestImage(for: source, size: PointSize(width: 100, height: 75),
                                                            scale: scale, accepting: [.webp, .jpeg],
                                                            processors: filter, preset: preset)
                            let fromSQLite = try? sqliteOnly.bestImage(
                                for: source, size: PointSize(width: 100, height: 75), scale: scale,
                                accepting: [.webp, .jpeg], processors: filter, preset: preset)
                            #expect(!comparable || hit?.cacheKey == fromSQLite?.cacheKey, "\(label): \(source) @\(scale) \(preset ?? "-")")
                            if let hit { answers.append(hit) }
                        }
                    }
                }
                _ = try? bundle.placeholder(for: SourceIdentifier(source))
                answers += (try? bundle.images(for: SourceIdentifier(source))) ?? []
            }
            for key in keys {
                do {
                    let hit = try bundle.image(forCacheKey: key)
                    #expect(!comparable || hit?.cacheKey == (try? sqliteOnly.image(forCacheKey: key))?.cacheKey,
                            "\(label): \(key)")
                    if let hit { answers.append(hit) }
                } catch let error as CacheBundleError {
                    #expect(!error.description.isEmpty)
                    if comparable {
                        #expect(throws: CacheBundleError.self, "\(label): \(key)") { try sqliteOnly.image(forCacheKey: key) }
                    }
                }
            }
            let inside = bundleURL.appendingPathComponent("objects").standardizedFileURL.path + "/"
            for hit in answers {
                let path = hit.fileURL.standardizedFileURL.path
                #expect(path.hasPrefix(inside), "\(label): answered \(path)")
                #expect(IndexValidation.isBlobHash(hit.sha256), "\(label)")
                #expect((try? hit.data())?.count == hit.byteCount, "\(label): \(path)")
            }
            let problems = (try? bundle.indexProblems()) ?? []
            if !problems.isEmpty { problemsNamed += 1 }
            // A hash that is not one is always named, with its column.
            if label.contains("UPDATE variants SET blob_sha256") {
                #expect(problems.contains { $0.column == "blob_sha256" }, "\(label): \(problems)")
            }
            for problem in problems {
                #expect(!problem.description.isEmpty && !problem.table.isEmpty, "\(label)")
            }
        }
        print("untrusted-index fuzz: \(iterations) mutated indexes (\(refused) changes SQLite refused), "
              + "\(rejectedAtOpen) refused at open, \(problemsNamed) opened with problems named")
        #expect(iterations - refused > 300)
    }

    /// A fresh bundle of ``sources`` in a temporary directory (`root`, to remove afterwards).
    static func bundle() throws -> (root: URL, bundleURL: URL, written: BundleFixtures.Written) {
        let root = try BundleFixtures.temporaryDirectory("untrusted")
        let bundleURL = root.appendingPathComponent("Images.warmcache")
        return (root, bundleURL, try BundleFixtures.write(to: bundleURL, sources: sources))
    }

    @Test("a row with a traversal hash is skipped and named, and verify reports it")
    func traversalHash() throws {
        let (root, bundleURL, written) = try Self.bundle()
        defer { try? FileManager.default.removeItem(at: root) }
        let victim = written.contents.variants.first { $0.key.source.rawValue == Self.sources[0] && $0.key.spec.scale == 3
            && $0.key.spec.format == .webp }!
        let connection = try SQLiteConnection(path: bundleURL.appendingPathComponent("index.sqlite").path, readOnly: false)
        try connection.execute("UPDATE variants SET blob_sha256 = '../../../../etc/passwd' "
                               + "WHERE cache_key = '\(victim.key.rawValue)'")

        let bundle = try CacheBundle(contentsOf: bundleURL)
        // The @3x WebP is skipped: the best for 100x75 @3x in WebP is now the @3x JPEG.
        let hit = try bundle.bestImage(for: Self.sources[0], size: PointSize(width: 100, height: 75), scale: 3,
                                       accepting: [.webp, .jpeg])
        #expect(hit?.format == .jpeg)
        #expect(throws: CacheBundleError.self) { try bundle.image(forCacheKey: victim.key.rawValue) }
        let problems = try bundle.indexProblems()
        #expect(problems.count == 1)
        #expect(problems.first?.column == "blob_sha256")
        #expect(problems.first?.description.contains("64 lowercase hex digits") == true)
        let report = try BundleVerifier(bundleURL: bundleURL).verify()
        #expect(report.problems.contains { $0.kind == .invalidRow && $0.detail.contains("blob_sha256") })
    }

    @Test("a missing or damaged blob is never an answer; verify names its sources and keys")
    func missingBlob() throws {
        let (root, bundleURL, written) = try Self.bundle()
        defer { try? FileManager.default.removeItem(at: root) }
        let victim = written.contents.variants.first { $0.key.source.rawValue == Self.sources[1] && $0.key.spec.scale == 2
            && $0.key.spec.format == .webp }!
        let path = bundleURL.appendingPathComponent(BundleFormat.objectPath(sha256: victim.blobSHA256, format: .webp))
        try FileManager.default.removeItem(at: path)

        // Answered from SQLite, then from the in-memory index: the same.
        let bundle = try CacheBundle(contentsOf: bundleURL)
        for fromMemory in [false, true] {
            if fromMemory { #expect(bundle.prepareMemoryIndex() != nil) }
            let hit = try bundle.bestImage(for: Self.sources[1], size: PointSize(width: 100, height: 75), scale: 2,
                                           accepting: [.webp, .jpeg])
            #expect(hit?.cacheKey != victim.key.rawValue)
            #expect(hit?.format == .jpeg)
            do {
                _ = try bundle.image(forCacheKey: victim.key.rawValue)
                Issue.record("answered with a missing blob")
            } catch let error as CacheBundleError {
                #expect(error.kind == .blobMissing(path: BundleFormat.objectPath(sha256: victim.blobSHA256, format: .webp)))
            }
            #expect(try !bundle.images(for: SourceIdentifier(Self.sources[1])).contains { $0.cacheKey == victim.key.rawValue })
        }

        let report = try BundleVerifier(bundleURL: bundleURL).verify()
        let problem = try #require(report.problems.first { $0.kind == .missingBlob })
        #expect(problem.cacheKeys == [victim.key.rawValue])
        #expect(problem.sources == [Self.sources[1]])
        #expect(problem.description.contains("warm-cache warm"))
    }
}
