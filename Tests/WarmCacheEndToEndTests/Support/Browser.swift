import Foundation
import Testing

/// Headless Chromium driven by `Tests/Browser/contact_sheet.py` (Selenium): opens a contact sheet
/// and reports what it shows. Installed by `scripts/install-deps`.
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
        var screenshot: String
        var darkBackground: String?
        var darkScreenshot: String?
        var filteredSources: Int?
        var filteredIdentifiers: [String]?
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
                + "(scripts/install-deps)?\n\(result.stderr)")
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

    /// Runs a program to completion with its output in files (no pipe can fill up).
    private static func run(_ executable: String, _ arguments: [String],
                            timeout: Double) async throws -> (status: Int32, stdout: String, stderr: String) {
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("browser-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }
        let out = scratch.appendingPathComponent("out"), err = scratch.appendingPathComponent("err")
        _ = FileManager.default.createFile(atPath: out.path, contents: nil)
        _ = FileManager.default.createFile(atPath: err.path, contents: nil)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = try FileHandle(forWritingTo: out)
        process.standardError = try FileHandle(forWritingTo: err)
        let exited = DispatchSemaphore(value: 0)
        process.terminationHandler = { _ in exited.signal() }
        try process.run()
        let finished: Bool = await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                continuation.resume(returning: exited.wait(timeout: .now() + timeout) == .success)
            }
        }
        if !finished {
            process.terminate()
            throw BrowserError("\(arguments.joined(separator: " ")) did not finish in \(Int(timeout)) s")
        }
        return (process.terminationStatus, (try? String(contentsOf: out, encoding: .utf8)) ?? "",
                (try? String(contentsOf: err, encoding: .utf8)) ?? "")
    }
}

struct BrowserError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
