import Foundation
import Testing
import WarmCacheTestSupport

/// Every failing command given `--json` prints one `{"error": …}` object on standard output, with
/// the exit code it has without `--json`, whatever failed: the command line, a manifest, a
/// bundle, the update source or its signature.
@Suite struct JSONErrorTests {
    /// Runs `arguments` without and with `--json`; checks the codes agree and the JSON is one error.
    private func expectJSONError(_ arguments: [String], status: Int32, in scratch: Scratch,
                                 sourceLocation: SourceLocation = #_sourceLocation) async throws {
        let plain = try await CLI.run(arguments, in: scratch.url)
        #expect(plain.status == status, "\(arguments): \(plain)", sourceLocation: sourceLocation)
        let json = try await CLI.run(arguments + ["--json"], in: scratch.url)
        #expect(json.status == status, "\(arguments) --json: \(json)", sourceLocation: sourceLocation)
        let object = (try? JSONSerialization.jsonObject(with: Data(json.stdout.utf8))) as? [String: Any]
        let message = object?["error"] as? String
        // An invalid manifest lists its problems apart too; every other failure is `error` alone.
        let keys: Set<String> = status == 65 ? ["error", "problems"] : ["error"]
        #expect(object.map { Set($0.keys) } == keys && message?.isEmpty == false,
                "\(arguments) --json printed: \(json.stdout)", sourceLocation: sourceLocation)
        #expect(message?.contains("\n") == false, "one line: \(message ?? "")", sourceLocation: sourceLocation)
    }

    @Test func everyFailingCommandPrintsOneErrorObject() async throws {
        try await withWorld(routes: [
            "/garbled/statement.json": .response(status: 200, headers: [("Content-Type", "application/json")],
                                                 body: Array("not a statement".utf8)),
        ]) { scratch, server in
            let keygen = try await CLI.run(["keygen", "images.key"], in: scratch.url)
            try #require(keygen.status == 0, "\(keygen)")
            let key = keygen.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
            try scratch.write("version: 1\noutput: Out/Images.warmcache\nimages:\n  - url: 42\n    presetz: []\n",
                              to: "bad.yml")
            _ = try scratch.write("not a bundle", to: "file.txt")
            let closed = try ClosedPort()

            // The command line.
            try await expectJSONError(["inspect", "Out/Images.warmcache", "--bogus"], status: 64, in: scratch)
            try await expectJSONError(["pull", server.url("/b/").absoluteString, "local"], status: 64, in: scratch)
            try await expectJSONError(["pull", "not-a-url", "local", "--public-key", key], status: 64, in: scratch)
            try await expectJSONError(["inspct", "x"], status: 64, in: scratch)
            // A manifest, a bundle.
            try await expectJSONError(["plan", "bad.yml"], status: 65, in: scratch)
            try await expectJSONError(["plan", "missing.yml"], status: 1, in: scratch)
            try await expectJSONError(["inspect", "missing.warmcache"], status: 1, in: scratch)
            try await expectJSONError(["verify", "missing.warmcache"], status: 1, in: scratch)
            try await expectJSONError(["lookup", "missing.warmcache", "https://img.test/a.jpg", "--size", "9x9"],
                                      status: 1, in: scratch)
            // The update source, its signature, the local folder.
            try await expectJSONError(["pull", closed.url("/b/").absoluteString, "local", "--public-key", key],
                                      status: 5, in: scratch)
            try await expectJSONError(["pull", server.url("/garbled/").absoluteString, "local", "--public-key", key],
                                      status: 6, in: scratch)
            try await expectJSONError(["pull", server.url("/garbled/").absoluteString, "file.txt", "--public-key", key],
                                      status: 1, in: scratch)
        }
    }

    @Test func anInvalidManifestListsEachProblemWithItsPlace() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        try scratch.write("version: 1\noutput: Out/Images.warmcache\nimages:\n  - url: 42\n    presetz: []\n",
                                         to: "bad.yml")
        let run = try await CLI.run(["plan", "bad.yml", "--json"], in: scratch.url)
        #expect(run.status == 65, "\(run)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any])
        let problems = try #require(object["problems"] as? [[String: Any]], "\(run.stdout)")
        #expect(problems.count == 2, "\(run.stdout)")
        for problem in problems {
            #expect((problem["file"] as? String)?.hasSuffix("/bad.yml") == true, "\(problem)")
            #expect((problem["line"] as? Int).map { (4...5).contains($0) } == true, "\(problem)")
            #expect((problem["column"] as? Int ?? 0) > 0, "\(problem)")
            #expect((problem["message"] as? String)?.isEmpty == false, "\(problem)")
        }
        #expect((problems.last?["message"] as? String)?.contains("presetz") == true, "\(problems)")
        // `error` stays one line: the count, not the problems joined.
        let error = try #require(object["error"] as? String)
        #expect(error.contains("2 problems") && !error.contains("presetz"), "\(error)")
    }
}
