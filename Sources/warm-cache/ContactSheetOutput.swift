import ArgumentParser
import Foundation
import WarmCacheBuilder

/// Writes a contact sheet for `inspect --html` and `warm --html`, and says where.
enum ContactSheetOutput {
    static func write(_ sheet: ContactSheet, to path: String, quiet: Bool) throws {
        let url = URL(fileURLWithPath: path)
        do {
            try sheet.write(to: url)
        } catch {
            Console.error("\(error)")
            throw ExitCode.failure
        }
        if !quiet {
            let attributes = try? FileManager.default.attributesOfItem(atPath: url.path)
            let size = (attributes?[.size] as? NSNumber)?.intValue ?? 0
            Console.line("Wrote the contact sheet \(path) (\(Console.bytes(size)))")
        }
    }
}
