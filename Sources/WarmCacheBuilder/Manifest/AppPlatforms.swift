import WarmCache
import WarmCacheImaging

/// The oldest version of each operating system an app supports (the manifest's `platforms:`),
/// and what follows from it: which image formats every one of them decodes, and so which
/// formats `formats: [smallest]` may choose from.
///
/// ``decodeTable`` is the one statement of which OS version first decodes each format with the
/// system's own decoder (ImageIO on Apple platforms, `BitmapFactory`/`ImageDecoder` on
/// Android); `docs/manifest.md` prints ``markdown`` (a test keeps the two equal).
public struct AppPlatforms: Sendable, Hashable {
    public enum Platform: String, CaseIterable, Sendable, Hashable, Comparable {
        case ios, macos, tvos, watchos, visionos, android

        /// The name as people write it.
        public var displayName: String {
            switch self {
            case .ios: "iOS / iPadOS"
            case .macos: "macOS"
            case .tvos: "tvOS"
            case .watchos: "watchOS"
            case .visionos: "visionOS"
            case .android: "Android"
            }
        }

        public static func < (lhs: Platform, rhs: Platform) -> Bool {
            allCases.firstIndex(of: lhs)! < allCases.firstIndex(of: rhs)!
        }
    }

    /// Per listed platform, the oldest version the app supports.
    public var minimums: [Platform: OSVersion]

    public init(_ minimums: [Platform: OSVersion]) {
        self.minimums = minimums
    }

    /// The first version of each platform that decodes each format; a format missing for a
    /// platform is not decoded there at all. JPEG, PNG and GIF decode everywhere.
    public static let decodeTable: [(format: ImageFormat, since: [Platform: OSVersion])] = [
        (.heic, [.ios: "11", .macos: "10.13", .tvos: "11", .watchos: "4", .visionos: "1", .android: "9"]),
        (.webp, [.ios: "14", .macos: "11", .tvos: "14", .watchos: "7", .visionos: "1", .android: "4.2"]),
        (.avif, [.ios: "16", .macos: "13", .tvos: "16", .watchos: "9", .visionos: "1", .android: "12"]),
        (.jxl, [.ios: "17", .macos: "14", .tvos: "17", .watchos: "10", .visionos: "1"]),
    ]

    /// Whether every listed platform, at its oldest supported version, decodes `format`.
    public func decodes(_ format: ImageFormat) -> Bool {
        guard let row = Self.decodeTable.first(where: { $0.format == format }) else { return true }
        return minimums.allSatisfy { platform, version in row.since[platform].map { version >= $0 } ?? false }
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

/// An operating system version such as `16.0` or `10.13`: dot-separated numbers, compared
/// numerically part by part (missing parts are zero).
public struct OSVersion: Sendable, Hashable, Comparable, CustomStringConvertible, ExpressibleByStringLiteral {
    public let parts: [Int]

    /// Parses `16`, `16.0`, `10.13.4`; `nil` for anything else.
    public init?(parsing text: String) {
        let pieces = text.split(separator: ".", omittingEmptySubsequences: false)
        guard !pieces.isEmpty, pieces.count <= 3 else { return nil }
        var parts: [Int] = []
        for piece in pieces {
            guard !piece.isEmpty, piece.allSatisfy(\.isASCII), let number = Int(piece), number >= 0 else { return nil }
            parts.append(number)
        }
        self.parts = parts
    }

    public init(stringLiteral value: String) {
        self = OSVersion(parsing: value)!
    }

    public var description: String { parts.map(String.init).joined(separator: ".") }

    public static func < (lhs: OSVersion, rhs: OSVersion) -> Bool {
        for index in 0..<max(lhs.parts.count, rhs.parts.count) {
            let (a, b) = (lhs.part(index), rhs.part(index))
            if a != b { return a < b }
        }
        return false
    }

    public static func == (lhs: OSVersion, rhs: OSVersion) -> Bool {
        !(lhs < rhs) && !(rhs < lhs)
    }

    public func hash(into hasher: inout Hasher) {
        var trimmed = parts
        while trimmed.last == 0 { trimmed.removeLast() }
        hasher.combine(trimmed)
    }

    private func part(_ index: Int) -> Int { index < parts.count ? parts[index] : 0 }
}
