import Foundation
import WarmCacheImaging

/// The one place where the fetcher's and the imaging engine's errors become a report's
/// ``SourceFailure``: a stable kind, and a message that does not repeat the source's URL.
extension SourceFailure {
    init(_ error: FetchError) {
        let kind: Kind
        var status: Int?
        switch error.kind {
        case .httpStatus(let code):
            kind = .httpStatus
            status = code
        case .timeout: kind = .timeout
        case .connection, .cannotConnect, .connectTimeout, .noResponse, .truncated: kind = .connection
        case .proxy: kind = .proxy
        case .tooManyRedirects, .forbiddenRedirect, .invalidRedirect: kind = .redirect
        case .notAnImage: kind = .notAnImage
        case .tooLarge: kind = .tooLarge
        case .fileSystem: kind = .fileSystem
        case .unsupportedScheme, .invalidHeader, .shutDown: kind = .invalidRequest
        }
        self.init(kind, error.summary, httpStatus: status, attempts: error.attempts > 0 ? error.attempts : nil)
    }

    init(_ error: ImagingError) {
        let kind: Kind
        let advice: String?
        switch error.kind {
        case .unsupportedFormat:
            kind = .unsupportedFormat
            advice = "Convert the original to JPEG, PNG, WebP, AVIF, HEIC, GIF, TIFF or JPEG XL"
        case .corruptOrTruncated, .decodeFailed:
            kind = .corruptImage
            advice = "Replace the original with an intact copy"
        case .tooManyPixels, .tooManyBytes:
            kind = .tooLarge
            advice = "Use a smaller original"
        case .invalidRequest:
            kind = .invalidRequest
            advice = nil
        case .encoderUnavailable, .processingFailed, .encodeFailed, .engineUnavailable:
            kind = .imaging
            advice = nil
        }
        self.init(kind, error.summary + (advice.map { ". " + $0 } ?? ""))
    }
}
