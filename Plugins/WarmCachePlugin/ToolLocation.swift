import Foundation

/// Where the plugin looks for an installed `warm-cache` when no build service can make one (an
/// Xcode app project): `PATH`, then the folders tools are usually installed in. Xcode started from
/// the Finder or the Dock runs plugins with `PATH=/usr/bin:/bin:/usr/sbin:/sbin`, which holds
/// none of them.
enum ToolLocation {
    /// The folders searched, in order: `PATH`'s, then Homebrew's (Apple Silicon, Intel),
    /// `~/.local/bin` and Mint's, each once.
    static func folders(path: String?, home: String) -> [String] {
        let fromPath = (path ?? "").split(separator: ":").map(String.init)
        let usual = ["/opt/homebrew/bin", "/usr/local/bin", home + "/.local/bin", home + "/.mint/bin"]
        var seen = Set<String>()
        return (fromPath + usual).filter { !$0.isEmpty && seen.insert($0).inserted }
    }

    /// The first executable `name` in ``folders(path:home:)``, or `nil`.
    static func find(_ name: String, environment: [String: String] = ProcessInfo.processInfo.environment,
                     isExecutable: (String) -> Bool = FileManager.default.isExecutableFile(atPath:)) -> URL? {
        let home = environment["HOME"] ?? NSHomeDirectory()
        return folders(path: environment["PATH"], home: home).lazy
            .map { URL(fileURLWithPath: $0).appendingPathComponent(name) }
            .first { isExecutable($0.path) }
    }
}
