import Foundation
import Testing
import WarmCacheBuilder
import WarmCacheTestSupport

/// A broken manifest on disk is rejected before any network access, with every problem
/// reported as `file:line:column: error: message`, including problems in a `urls_from` list.
@Suite struct ManifestValidationTests {
    /// The 1-based line and column where `token` first appears in `text`.
    static func position(of token: String, in text: String) -> (line: Int, column: Int)? {
        for (index, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            if let range = line.range(of: token) {
                return (index + 1, line.distance(from: line.startIndex, to: range.lowerBound) + 1)
            }
        }
        return nil
    }

    @Test func everyProblemIsReportedWithFileLineAndColumn() async throws {
        try await withWorld { scratch, server in
            let yaml = """
                version: 1
                output: Out/Images.warmcache
                presets:
                  thumb: { width: 48, height: 48, fit: cover }
                fetch:
                  timeout: soon
                images:
                  - url: \(server.url("/a.jpg"))
                    presets: [thum]
                  - url: ftp://example.com/b.jpg
                    presets: [thumb]
                  - urls_from: lists/urls.txt
                    presets: [thumb]
                    quality: { webp: 0 }
                    formats: [webp]

                """
            let list = "# sources\n\(server.url("/c.jpg"))\nnot a url\n"
            let manifest = try scratch.write(yaml, to: "manifest.yml")
            let listFile = try scratch.write(list, to: "lists/urls.txt")

            let thrown: ManifestError
            do {
                _ = try ManifestLoader(environment: [:]).load(contentsOf: manifest)
                Issue.record("the manifest loaded")
                return
            } catch let error as ManifestError {
                thrown = error
            } catch {
                Issue.record("unexpected error \(error)")
                return
            }
            let lines = thrown.description.split(separator: "\n").map(String.init)
            func expectError(at token: String, in text: String, file: URL, mentioning words: [String]) {
                guard let (line, column) = Self.position(of: token, in: text) else {
                    Issue.record("\(token) not in the text")
                    return
                }
                let prefix = "\(file.path):\(line):\(column): error: "
                let match = lines.first { $0.hasPrefix(prefix) }
                #expect(match != nil, "no error at \(prefix) in:\n\(thrown.description)")
                for word in words {
                    #expect(match?.contains(word) == true, "\(match ?? prefix) should mention \(word)")
                }
            }
            expectError(at: "soon", in: yaml, file: manifest, mentioning: ["fetch.timeout", "soon"])
            expectError(at: "thum]", in: yaml, file: manifest, mentioning: ["unknown preset 'thum'", "did you mean 'thumb'"])
            expectError(at: "ftp://", in: yaml, file: manifest, mentioning: ["ftp"])
            expectError(at: "0 }", in: yaml, file: manifest, mentioning: ["quality", "webp", "0"])
            expectError(at: "not a url", in: list, file: listFile, mentioning: [])
            #expect(thrown.errors.count == 5, "\(thrown.description)")

            // Sorted by file, then line and column.
            let sorted = thrown.errors.sorted {
                ($0.file, $0.line, $0.column) < ($1.file, $1.line, $1.column)
            }
            #expect(thrown.errors == sorted)
            // Nothing was fetched.
            #expect(server.totalRequestCount == 0)
        }
    }

    @Test func aMissingManifestFileIsAnErrorNamingIt() throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let missing = scratch.path("nope.yml")
        #expect {
            try ManifestLoader(environment: [:]).load(contentsOf: missing)
        } throws: { error in
            "\(error)".hasPrefix("\(missing.path):1:1: error: cannot read the manifest")
        }
    }
}
