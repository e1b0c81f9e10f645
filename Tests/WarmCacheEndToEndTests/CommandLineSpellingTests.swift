import Foundation
import Testing
import WarmCacheTestSupport

/// No spelling on the command line is a silent no-op: `--version` belongs to `warm-cache`
/// itself, a renamed option names its new spelling, and a file option that names a folder is
/// refused before any work.
@Suite struct CommandLineSpellingTests {
    @Test func versionIsTheToolsOwnAndSignsOldSpellingNamesTheNewOne() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let keygen = try await CLI.run(["keygen", "images.key"], in: scratch.url)
        try #require(keygen.status == 0, "\(keygen)")
        try FileManager.default.createDirectory(at: scratch.path("B.warmcache"), withIntermediateDirectories: true)

        let tool = try await CLI.run(["--version"], in: scratch.url)
        #expect(tool.status == 0 && !tool.stdout.isEmpty, "\(tool)")

        // `sign`'s statement version was once `--version`: it fails, naming `--sign-version` with the value.
        for spelling in [["--version", "5"], ["--version=5"]] {
            let sign = try await CLI.run(["sign", "B.warmcache", "--key", "images.key"] + spelling, in: scratch.url)
            #expect(sign.status == 64, "\(spelling): \(sign)")
            #expect(sign.stderr.contains("--sign-version 5") && sign.stderr.contains("formerly --version"), "\(sign)")
            #expect(!sign.stdout.contains(tool.stdout.trimmingCharacters(in: .whitespacesAndNewlines)),
                    "printed the tool's version: \(sign)")
        }
        #expect(!FileManager.default.fileExists(atPath: scratch.path("B.warmcache/statement.json").path))

        // Any other subcommand, and the default one (`warm`), refuse it too, with one line.
        for arguments in [["plan", "manifest.yml", "--version"], ["manifest.yml", "--version"],
                          ["inspect", "B.warmcache", "--version"], ["merge", "-o", "M.warmcache", "--version", "3"]] {
            let run = try await CLI.run(arguments, in: scratch.url)
            #expect(run.status == 64, "\(arguments): \(run)")
            #expect(run.stderr.contains("`warm-cache --version` alone"), "\(arguments): \(run)")
            #expect(run.stdout.isEmpty, "\(arguments): \(run)")
        }
        let warm = try await CLI.run(["warm", "manifest.yml", "--version", "2"], in: scratch.url)
        #expect(warm.stderr.contains("--sign-version N"), "\(warm)")
        let json = try await CLI.run(["inspect", "B.warmcache", "--json", "--version"], in: scratch.url)
        #expect(json.status == 64 && json.stdout.contains("\"error\""), "\(json)")
    }

    @Test func aFileOptionNamingAFolderIsRefusedBeforeAnyWork() async throws {
        let image = try SourceImages.distinct(1)[0]
        try await withWorld(routes: ["/a.jpg": .image(image.bytes, contentType: image.contentType)]) { scratch, server in
            try scratch.write(Manifests.yaml(urls: [server.url("/a.jpg")]), to: "manifest.yml")
            try FileManager.default.createDirectory(at: scratch.path("existing"), withIntermediateDirectories: true)

            for (option, path) in [("--report", "out/dir/"), ("--report", "existing"), ("--html", "pages/")] {
                let run = try await CLI.run(["warm", "manifest.yml", "--cache-dir", "cache", option, path], in: scratch.url)
                #expect(run.status == 64, "\(option) \(path): \(run)")
                #expect(run.stderr.contains("\(option) '\(path)'") && run.stderr.contains("name the file to write"),
                        "\(option) \(path): \(run)")
            }
            let merge = try await CLI.run(["merge", "-o", "M.warmcache", "part.warmcache", "--report", "merged/",
                                           "--reports", "r1.json"], in: scratch.url)
            #expect(merge.status == 64 && merge.stderr.contains("--report 'merged/' ends in /"), "\(merge)")

            // Nothing was fetched or written: no file named after the folder, no bundle.
            #expect(server.totalRequestCount == 0)
            #expect(!FileManager.default.fileExists(atPath: scratch.path("out/dir").path))
            #expect(!FileManager.default.fileExists(atPath: scratch.path("Out").path))
        }
    }
}
