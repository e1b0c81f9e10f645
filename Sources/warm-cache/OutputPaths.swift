import ArgumentParser
import Foundation
import WarmCache

/// Every path a command writes (`-o`, `--cache-dir`, `--report`, `--html`, `pull`'s folder) is
/// checked here before any work, so a run never downloads and encodes for minutes and then
/// fails on where to put the result. Missing folders on the way are fine (they are created when
/// written); a file where a folder must be, a folder that cannot be written, or a bundle folder
/// holding other things is refused with one plain line (exit 1).
enum OutputPaths {
    /// Refuses, from a command's `validate()` (the usage status, 64), a file option whose path
    /// names a folder: one that ends in `/` (which would otherwise write a file named after the
    /// last folder), or an existing folder.
    ///
    /// ```swift
    /// try OutputPaths.validateFileName(report, option: "--report", example: "report.json")
    /// ```
    static func validateFileName(_ path: String?, option: String, example: String) throws {
        guard let path else { return }
        var isDirectory: ObjCBool = false
        let why: String
        if path.isEmpty {
            why = "is empty"
        } else if path.hasSuffix("/") {
            why = "ends in /, so it names a folder"
        } else if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue {
            why = "is a folder"
        } else {
            return
        }
        let folder = path.isEmpty ? "." : String(path.reversed().drop { $0 == "/" }.reversed())
        throw ValidationError("\(option) '\(path)' \(why); name the file to write, e.g. \(folder)/\(example)")
    }

    /// Refuses a file the run writes (`--report`, `--html`) that cannot be written.
    static func checkFile(_ path: String, option: String) throws {
        if let problem = problem(withFileAt: path) {
            Console.error("cannot write \(option) \(path): \(problem); choose another \(option) path")
            throw ExitCode.failure
        }
    }

    /// Refuses a folder the run writes into (`--cache-dir`) that cannot be written.
    static func checkFolder(_ path: String, option: String) throws {
        if let problem = problem(withFolderAt: path) {
            Console.error("cannot write \(option) \(path): \(problem); choose another \(option) path")
            throw ExitCode.failure
        }
    }

    /// Refuses a bundle folder (`-o`, the manifest's `output`, `pull`'s DIR) that cannot be
    /// written, or that holds something other than a bundle.
    static func checkBundle(_ path: String, what: String = "the bundle") throws {
        let problem = ObjectStore.refusal(toWriteBundleAt: path).map { "it is not a WarmCache bundle (\($0))" }
            ?? problem(withFolderAt: path)
        if let problem {
            Console.error("cannot write \(what) \(path): \(problem); choose another path, or remove what is there")
            throw ExitCode.failure
        }
    }

    /// Why the file at `path` cannot be written, or `nil`.
    static func problem(withFileAt path: String) -> String? {
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) {
            if isDirectory.boolValue { return "it is a folder" }
            return access(path, W_OK) == 0 ? nil : "it is not writable"
        }
        return problem(withParentOf: path)
    }

    /// Why the folder at `path` cannot be written into, or `nil`.
    static func problem(withFolderAt path: String) -> String? {
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) {
            if !isDirectory.boolValue { return "it is a file, not a folder" }
            return access(path, W_OK | X_OK) == 0 ? nil : "the folder is not writable"
        }
        return problem(withParentOf: path)
    }

    /// Why nothing can be created at the missing `path`: its nearest existing ancestor is a file
    /// or a folder that cannot be written.
    private static func problem(withParentOf path: String) -> String? {
        var ancestor = (URL(fileURLWithPath: path).standardizedFileURL.path as NSString).deletingLastPathComponent
        while !ancestor.isEmpty {
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: ancestor, isDirectory: &isDirectory) {
                if !isDirectory.boolValue { return "\(ancestor) is a file, not a folder" }
                return access(ancestor, W_OK | X_OK) == 0 ? nil : "the folder \(ancestor) is not writable"
            }
            let parent = (ancestor as NSString).deletingLastPathComponent
            if parent == ancestor { break }
            ancestor = parent
        }
        return nil
    }
}
