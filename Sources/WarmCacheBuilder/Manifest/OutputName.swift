/// The rule for where a bundle is written, the same for the manifest's `output` and the CLI's
/// `-o`: a directory whose name ends in `.warmcache` (so a typo can never point a run, and the
/// clean-up of a failed one, at an ordinary folder).
public enum OutputName {
    /// `path` without a trailing slash.
    public static func normalized(_ path: String) -> String {
        path.hasSuffix("/") ? String(path.dropLast()) : path
    }

    /// What is wrong with `path` as a bundle output, with a suggestion, or `nil` if it is fine.
    public static func problem(with path: String) -> String? {
        let trimmed = normalized(path)
        if trimmed.hasSuffix(".warmcache"), trimmed.count > ".warmcache".count { return nil }
        let name = trimmed.split(separator: "/").last.map(String.init) ?? ""
        return "must name a '.warmcache' bundle directory, found '\(path)' (e.g. '\(name.isEmpty ? "Images" : name).warmcache')"
    }
}
