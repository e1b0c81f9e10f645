import Foundation

/// A link from a page to a folder, as a relative URL a `file://` page can follow.
enum RelativeLink {
    /// Characters kept as they are in a path segment; everything else is percent-escaped
    /// (so `#`, `?`, `%` and spaces in folder names cannot break the link).
    private static let segmentCharacters = CharacterSet(
        charactersIn: "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~!$&'()*+,;=:@")

    /// `target` relative to `folder`, URL-escaped and ending in `/`: `Images.warmcache/`,
    /// `../Resources/Images.warmcache/`, or `./` for the folder itself. Symbolic links are
    /// resolved first, so both sides are compared as the file system sees them.
    static func from(folder: URL, to target: URL) -> String {
        let from = components(folder)
        let to = components(target)
        var common = 0
        while common < from.count, common < to.count, from[common] == to[common] {
            common += 1
        }
        let segments = Array(repeating: "..", count: from.count - common)
            + to[common...].map { $0.addingPercentEncoding(withAllowedCharacters: segmentCharacters) ?? $0 }
        return segments.isEmpty ? "./" : segments.joined(separator: "/") + "/"
    }

    private static func components(_ url: URL) -> [String] {
        url.standardizedFileURL.resolvingSymlinksInPath().pathComponents.filter { $0 != "/" }
    }
}
