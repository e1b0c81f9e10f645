import Foundation
import WarmCache

/// Why the loader could not give an image, in plain words (``description``), with the URL.
///
/// ```swift
/// do {
///     imageView.image = try await loader.image(for: request).image.image as! CGImage
/// } catch let error as ImageLoadingError {
///     log.error("\(error)")  // The image at https://… could not be loaded: the server answered 404 (Not Found). …
///     if error.reason.isWorthRetrying { showRetryButton() }
/// }
/// ```
public struct ImageLoadingError: Error, Sendable, CustomStringConvertible {
    /// What went wrong; ``description`` puts it in words.
    public enum Reason: Sendable, Hashable {
        /// The bundle lacks the image and the loader may not use the network.
        case notInBundle
        /// The server answered with this status (not 2xx).
        case httpStatus(Int)
        /// No answer from the server: the words say why (no connection, refused, timed out).
        case unreachable(String)
        /// The server's body is not an image the decoder reads: its size, its declared type and
        /// the decoder's words.
        case undecodableBody(byteCount: Int, contentType: String?, detail: String)
        /// The bundle's blob at this path (relative to the bundle) could not be decoded.
        case undecodableBlob(path: String, detail: String)
        /// The bundle's index could not be read: the bundle's own words.
        case bundleUnreadable(String)
    }

    /// The image's URL, as requested.
    public let url: URL
    /// What went wrong.
    public let reason: Reason

    /// An error for `url`.
    public init(url: URL, reason: Reason) {
        self.url = url
        self.reason = reason
    }

    /// What happened, where, and what to do, e.g. "The image at https://cdn.example.com/a.jpg
    /// could not be loaded: the server answered 404 (Not Found). Check that the URL is right and
    /// the image still published."
    public var description: String {
        let image = "The image at \(url.absoluteString)"
        switch reason {
        case .notInBundle:
            return "\(image) is not in the bundle, and loading images from the network is turned off. "
                + "Add the URL to the manifest and bake the bundle again, or allow the network in the loader's configuration."
        case .httpStatus(let status):
            return "\(image) could not be loaded: the server answered \(status) (\(HTTPStatusPhrase.of(status))). "
                + (status >= 500 || status == 429 ? "The server may be busy or down: try again later."
                                                  : "Check that the URL is right and the image still published.")
        case .unreachable(let detail):
            return "\(image) could not be loaded: the server could not be reached (\(detail)). "
                + "Check the device's connection and the URL's host."
        case .undecodableBody(let byteCount, let contentType, let detail):
            let what = contentType.map { "\(byteCount) bytes of \($0)" } ?? "\(byteCount) bytes"
            return "\(image) could not be loaded: what the server sent (\(what)) is not an image this device "
                + "decodes (\(detail)). Check that the URL points at the image itself, not a page."
        case .undecodableBlob(let path, let detail):
            return "\(image) could not be shown: the bundle's file \(path) could not be decoded (\(detail)). "
                + "Bake the bundle again, or check it with `warm-cache verify`."
        case .bundleUnreadable(let detail):
            return "\(image) could not be looked up in the bundle: \(detail)"
        }
    }
}

extension ImageLoadingError.Reason {
    /// Whether trying again later may succeed: the network failed or the server was busy, as
    /// opposed to an image that is missing or broken.
    public var isWorthRetrying: Bool {
        switch self {
        case .unreachable: return true
        case .httpStatus(let status): return status >= 500 || status == 429 || status == 408
        default: return false
        }
    }
}
