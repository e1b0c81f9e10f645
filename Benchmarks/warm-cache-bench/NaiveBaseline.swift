import Foundation

/// What a build script without WarmCache does: for each URL, `curl` it to a file, then run
/// `vipsthumbnail` once per variant and format. One file at a time.
struct NaiveBaseline {
    let directory: URL

    init(directory: URL) throws {
        self.directory = directory
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    /// Wall seconds for all URLs.
    func run(_ urls: [String]) throws -> Double {
        try Measurement.seconds {
            for (index, url) in urls.enumerated() {
                let original = directory.appendingPathComponent("\(index)-\((url as NSString).lastPathComponent)")
                try Self.exec("/usr/bin/curl", ["-sSf", "-o", original.path, url])
                for variant in WarmBenchmarkManifest.baselineVariants {
                    for format in WarmBenchmarkManifest.baselineFormats {
                        let output = directory.appendingPathComponent("\(index)-\(variant.name)-%s.\(format)").path
                        try Self.exec("/usr/bin/vipsthumbnail", [original.path] + variant.arguments + ["-o", output])
                    }
                }
            }
        }
    }

    private static func exec(_ path: String, _ arguments: [String]) throws {
        try Subprocess.run(path, arguments)
    }
}

/// Runs a command to completion with its output discarded; a non-zero exit throws.
enum Subprocess {
    static func run(_ path: String, _ arguments: [String]) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = arguments
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw CocoaError(.fileWriteUnknown, userInfo: [
                NSLocalizedDescriptionKey: "\(path) \(arguments.joined(separator: " ")) exited \(process.terminationStatus)",
            ])
        }
    }
}
