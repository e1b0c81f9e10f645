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
