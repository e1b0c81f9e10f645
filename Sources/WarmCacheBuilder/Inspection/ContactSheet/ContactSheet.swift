import Foundation
import WarmCache

/// A contact sheet: one self-contained HTML page showing everything a bundle holds.
///
/// Every source with its identifier and original size, each variant as the real image with its
/// presets, pixel size, format, bytes and cache key, the source's placeholders (ThumbHash and
/// BlurHash rendered, average colour swatch), totals by format and by preset, and the failures of
/// the run that wrote the bundle when there is one.
///
/// The page opens from `file://` with no server and no network. Images are not embedded: each
/// `<img>` links to its blob in the bundle by a path relative to the page, so keep the page and
/// the bundle side by side (as they were written) when moving or uploading them. The data is one
/// compact JSON block; the page's script renders it a page of rows at a time, so a bundle of
/// 10,000 sources opens and scrolls as fast as one of ten.
///
/// ```swift
/// var sheet = try ContactSheet(bundleURL: bundle)
/// sheet.failures = report.failures.map(ContactSheet.Failure.init)
/// try sheet.write(to: URL(fileURLWithPath: "Build/contact-sheet.html"))
/// ```
public struct ContactSheet: Sendable {
    /// A source the run could not bake.
    public struct Failure: Sendable, Equatable {
        public var identifier: String
        /// The URL or file the original was to come from.
        public var location: String
        /// Where the manifest lists the source (`file:line:column`).
        public var listedAt: String
        public var reason: String

        public init(identifier: String, location: String, listedAt: String, reason: String) {
            self.identifier = identifier
            self.location = location
            self.listedAt = listedAt
            self.reason = reason
        }

        /// The failure of a source in a warm run's report.
        public init(_ source: SourceReport) {
            self.init(identifier: source.identifier, location: source.location, listedAt: source.listedAt,
                      reason: source.failure?.message ?? "failed")
        }
    }

    /// The bundle the page shows, or `nil` for a page of failures only (a run that wrote nothing).
    public let bundleURL: URL?
    /// Failures to list; empty for `inspect`, which only knows the bundle.
    public var failures: [Failure]
    /// Why no bundle was written, shown at the top of a page without one (e.g. "1 of 4 sources
    /// failed and --strict is set: nothing was written; … is unchanged").
    public var whyNoBundle: String?

    /// - Parameters:
    ///   - bundleURL: the bundle to show; `nil` when the run left no bundle to show.
    ///   - whyNoBundle: for a page without a bundle, the run's reason for writing none.
    public init(bundleURL: URL?, failures: [Failure] = [], whyNoBundle: String? = nil) {
        self.bundleURL = bundleURL
        self.failures = failures
        self.whyNoBundle = whyNoBundle
    }

    /// Reads the bundle and writes the page to `pageURL` atomically (a failure leaves any
    /// previous page in place), creating its folder if needed.
    public func write(to pageURL: URL) throws {
        let pageURL = pageURL.standardizedFileURL
        let folder = pageURL.deletingLastPathComponent()
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        } catch {
            throw ContactSheetError.cannotWrite(pageURL.path, reason: PlainReason.of(error))
        }
        let html = try render(pageFolder: folder)
        do {
            try Data(html.utf8).write(to: pageURL, options: .atomic)
        } catch {
            throw ContactSheetError.cannotWrite(pageURL.path, reason: PlainReason.of(error))
        }
    }

    /// The page's HTML, with blob links relative to `pageFolder`.
    public func render(pageFolder: URL) throws -> String {
        var data: ContactSheetData
        if let bundleURL {
            data = try ContactSheetData.read(bundleURL: bundleURL,
                                             link: RelativeLink.from(folder: pageFolder, to: bundleURL))
        } else {
            data = ContactSheetData()
            data.summary.whyNoBundle = whyNoBundle ?? ""
        }
        data.failures = failures
        return try ContactSheetPage.html(title: bundleURL?.lastPathComponent ?? "No bundle written", data: data)
    }
}

/// Why a contact sheet could not be written.
public enum ContactSheetError: Error, CustomStringConvertible {
    case cannotWrite(String, reason: String)

    public var description: String {
        switch self {
        case .cannotWrite(let path, let reason):
            return "cannot write the contact sheet to \(path): \(reason); check that the folder is writable"
        }
    }
}
