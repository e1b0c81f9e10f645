import WarmCache
import WarmCacheImaging

/// The oldest version of each operating system an app supports (the manifest's `platforms:`),
/// and what follows from it: which image formats every one of them decodes, and so which
/// formats `formats: [smallest]` may choose from.
///
/// Which OS version first decodes each format is the runtime's ``FormatSupport`` table, so the
/// formats a bundle is baked in and those an app's lookups accept come from one statement;
/// `docs/manifest.md` prints ``markdown`` (a test keeps the two equal).
public struct AppPlatforms: Sendable, Hashable {
    /// The operating systems `platforms:` names (the runtime's own list).
    public typealias Platform = AppPlatform

    /// Per listed platform, the oldest version the app supports.
    public var minimums: [Platform: OSVersion]

    public init(_ minimums: [Platform: OSVersion]) {
        self.minimums = minimums
    }

    /// The first version of each platform that decodes each format: the runtime's table, which
    /// also gives an app's lookups the formats its device decodes.
    public static var decodeTable: [(format: ImageFormat, since: [Platform: OSVersion])] {
        FormatSupport.firstDecodingVersions
    }

    /// Whether every listed platform, at its oldest supported version, decodes `format`.
    public func decodes(_ format: ImageFormat) -> Bool {
        minimums.allSatisfy { platform, version in FormatSupport.decodes(format, on: platform, version: version) }
    }
    /// `formats: [smallest]`'s candidates for opaque images, most often smallest first (so the
    /// others are pruned early): the lossy formats every platform decodes. HEIC only where AVIF
    /// is not decoded: at the same score it is about as small, and its encoder (x265) takes
    /// three to four times AVIF's CPU (`docs/imaging.md`).
    public var opaqueCandidates: [ImageFormat] {
        let modern: [ImageFormat] = decodes(.avif) ? [.avif] : decodes(.heic) ? [.heic] : []
        return modern + [ImageFormat.jxl, .webp].filter(decodes) + [.jpeg]
    }

    /// The candidates for images with transparency: lossy formats with alpha that every platform
    /// decodes, or PNG when there is none. HEIC is left out: its alpha support varies by decoder.
    public var alphaCandidates: [ImageFormat] {
        let lossy = [ImageFormat.avif, .jxl, .webp].filter(decodes)
        return lossy.isEmpty ? [.png] : lossy
    }

    /// The format choice `smallest` stands for on these platforms.
    public var smallest: FormatChoice {
        .smallest(opaque: opaqueCandidates, alpha: alphaCandidates)
    }

    /// The decode table as Markdown, as `docs/manifest.md` shows it.
    public static var markdown: String {
        var lines = ["| format | " + Platform.allCases.map(\.displayName).joined(separator: " | ") + " |",
                     "|---|" + String(repeating: "---|", count: Platform.allCases.count)]
        lines.append("| `jpeg`, `png`, `gif` | " + Platform.allCases.map { _ in "all" }.joined(separator: " | ") + " |")
        for row in decodeTable {
            lines.append("| `\(row.format.rawValue)` | "
                         + Platform.allCases.map { row.since[$0].map { "\($0)+" } ?? "no" }.joined(separator: " | ")
                         + " |")
        }
        return lines.joined(separator: "\n")
    }
}
