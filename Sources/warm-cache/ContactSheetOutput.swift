import ArgumentParser
import Foundation
import WarmCacheBuilder
import WarmCache

/// Writes a contact sheet for `inspect --html` and `warm --html`, and says where.
enum ContactSheetOutput {
    /// Refuses, before any work, a page path that cannot be a file.
    static func validate(_ path: String?) throws {
        try OutputPaths.validateFileName(path, option: "--html", example: "contact-sheet.html")
    }

    static func write(_ sheet: ContactSheet, to path: String, quiet: Bool) throws {
        let url = URL(fileURLWithPath: path)
        do {
            try sheet.write(to: url)
        } catch {
            Console.error("\(PlainReason.of(error))")
            throw ExitCode.failure
        }
        if !quiet {
            let attributes = try? FileManager.default.attributesOfItem(atPath: url.path)
            let size = (attributes?[.size] as? NSNumber)?.intValue ?? 0
            Console.line("Wrote the contact sheet \(path) (\(Console.bytes(size)))")
        }
    }
}
