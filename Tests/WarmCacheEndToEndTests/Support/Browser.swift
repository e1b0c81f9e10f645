import Foundation
import Testing

/// Headless Chromium driven by `Tests/Browser/contact_sheet.py` (Selenium): opens a contact sheet
/// and reports what it shows. Installed by `scripts/install-deps --tests`.
enum Browser {
    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()
    static let script = packageRoot.appendingPathComponent("Tests/Browser/contact_sheet.py")
    /// Screenshots are kept here after the run, for people to look at (CI can upload the folder).
    static let artifacts = packageRoot.appendingPathComponent(".build/test-artifacts", isDirectory: true)

    /// What the page showed; see the script for each field.
    struct Report: Decodable {
        struct Image: Decodable {
            var src: String
            var format: String
            var naturalWidth: Int
            var naturalHeight: Int
        }

        struct Placeholder: Decodable {
            var kind: String
            var width: Int
            var height: Int
            var opaque: Int
            var spread: Int
            var mean: [Double]
        }

        var readySeconds: Double
        var consoleErrors: [String]
        var matchingSources: Int
        var shownSources: Int
        var shownVariants: Int
        var rows: Int
        var summary: String
        var totals: String
        var failureRows: Int
        var failuresText: String
        var placeholders: [Placeholder]
        var images: [Image]
        var imagesSeconds: Double
        var brokenFigures: Int
        var bytesDescending: [Int]
        /// Per preset and per format: `[matching sources, variants shown]`.
        var byPreset: [String: [Int]]
        var byFormat: [String: [Int]]
        var screenshot: String
        var darkBackground: String?
        var darkScreenshot: String?
        var filteredSources: Int?
        var filteredIdentifiers: [String]?
        var filteredFailuresText: String?
        var filteredFailureRows: Int?
        var hash: String?
        var sourcesAfterReload: Int?
    }

    /// Opens `page`, saves screenshots as `<name>.png` (and `<name>-dark.png`) under ``artifacts``.
    static func open(_ page: URL, screenshotName name: String, perPage: Int? = nil, filter: String? = nil,
                     dark: Bool = false) async throws -> Report {
        try FileManager.default.createDirectory(at: artifacts, withIntermediateDirectories: true)
        var arguments = [script.path, page.path, artifacts.appendingPathComponent("\(name).png").path]
        if let perPage { arguments += ["--per-page", String(perPage)] }
        if let filter { arguments += ["--filter", filter] }
        if dark { arguments += ["--dark", artifacts.appendingPathComponent("\(name)-dark.png").path] }
        let result = try await run("/usr/bin/env", ["python3"] + arguments, timeout: 600)
        guard result.status == 0 else {
            throw BrowserError("the browser check failed (exit \(result.status)); is Chromium installed "
                + "(scripts/install-deps --tests)?\n\(result.stderr)")
        }
        do {
            return try JSONDecoder().decode(Report.self, from: Data(result.stdout.utf8))
        } catch {
            throw BrowserError("unreadable browser report: \(error)\n\(result.stdout)\n\(result.stderr)")
        }
    }

    /// The standard deviation of a PNG's pixel values (`vips deviate`): near 0 for a blank image.
    static func deviation(ofPNG path: String) async throws -> Double {
        let result = try await run("/usr/bin/env", ["vips", "deviate", path], timeout: 120)
        guard result.status == 0, let value = Double(result.stdout.trimmingCharacters(in: .whitespacesAndNewlines))
        else { throw BrowserError("vips deviate \(path) failed: \(result.stderr)") }
        return value
    }

    /// Runs a program to completion, the way the tests run `warm-cache` (output in files).
    private static func run(_ executable: String, _ arguments: [String], timeout: Double) async throws -> CLI.Result {
        let scratch = try Scratch("browser")
        defer { scratch.remove() }
        return try await CLI.start(arguments, in: scratch.url, program: URL(fileURLWithPath: executable))
            .wait(timeout: timeout)
    }
}

struct BrowserError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
