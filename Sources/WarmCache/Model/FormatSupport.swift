import Foundation

/// An operating system an app runs on, as the manifest's `platforms:` names it.
public enum AppPlatform: String, CaseIterable, Sendable, Hashable, Comparable {
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

    public static func < (lhs: AppPlatform, rhs: AppPlatform) -> Bool {
        allCases.firstIndex(of: lhs)! < allCases.firstIndex(of: rhs)!
    }

    /// The platform this code runs on, or `nil` where the system decodes no images for apps
    /// (Linux, Windows). An iPhone or iPad app running on a Mac, and a Mac Catalyst app, are iOS
    /// apps: their formats come from the iOS row, at the iOS version their Mac matches.
    public static var current: AppPlatform? {
        #if os(iOS)
        .ios
        #elseif os(macOS)
        .macos
        #elseif os(tvOS)
        .tvos
        #elseif os(watchOS)
        .watchos
        #elseif os(visionOS)
        .visionos
        #elseif os(Android)
        .android
        #else
        nil
        #endif
    }
}

/// Which formats the system's own image decoders read (ImageIO on Apple platforms,
/// `BitmapFactory`/`ImageDecoder` on Android), by operating system version.
///
/// The one table both sides use: the builder's `platforms:` and `formats: [smallest]` choose from
/// it what every supported OS decodes, and a lookup's default list of accepted formats
/// (``ImageFormat/decodedHere``) comes from it for the device the app runs on.
public enum FormatSupport {
    /// The first version of each platform that decodes each format; a platform missing from a
    /// row does not decode that format at all. JPEG, PNG and GIF decode everywhere.
    public static let firstDecodingVersions: [(format: ImageFormat, since: [AppPlatform: OSVersion])] = [
        (.heic, [.ios: "11", .macos: "10.13", .tvos: "11", .watchos: "4", .visionos: "1", .android: "9"]),
        (.webp, [.ios: "14", .macos: "11", .tvos: "14", .watchos: "7", .visionos: "1", .android: "4.2"]),
        (.avif, [.ios: "16", .macos: "13", .tvos: "16", .watchos: "9", .visionos: "1", .android: "12"]),
        (.jxl, [.ios: "17", .macos: "14", .tvos: "17", .watchos: "10", .visionos: "1"]),
    ]

    /// Whether `platform` at `version` decodes `format`.
    public static func decodes(_ format: ImageFormat, on platform: AppPlatform, version: OSVersion) -> Bool {
        guard let row = firstDecodingVersions.first(where: { $0.format == format }) else { return true }
        return row.since[platform].map { version >= $0 } ?? false
    }

    /// The formats `platform` at `version` decodes, in the order a lookup should prefer them:
    /// the smallest files first (AVIF, JPEG XL, HEIC, WebP), then JPEG, PNG and GIF.
    public static func decodedFormats(on platform: AppPlatform, version: OSVersion) -> [ImageFormat] {
        preference.filter { decodes($0, on: platform, version: version) }
    }

    /// Every format, in the order of ``decodedFormats(on:version:)``.
    static let preference: [ImageFormat] = [.avif, .jxl, .heic, .webp, .jpeg, .png, .gif]
}

extension ImageFormat {
    /// The formats the device this code runs on decodes with the system's decoders, smallest
    /// files first: on iOS 16, `[.avif, .heic, .webp, .jpeg, .png, .gif]`. Lookups accept these
    /// by default, so a bundle baked for `platforms: { ios: "16.0" }` with `formats: [smallest]`
    /// is found without listing formats. Where the system decodes no images (Linux), every format.
    public static let decodedHere: [ImageFormat] = {
        guard let platform = AppPlatform.current else { return FormatSupport.preference }
        let version = LibC.systemVersion
        return FormatSupport.decodedFormats(
            on: platform, version: OSVersion(major: version.major, minor: version.minor, patch: version.patch))
    }()
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

    /// The version `major.minor.patch`.
    public init(major: Int, minor: Int = 0, patch: Int = 0) {
        parts = [major, minor, patch]
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
