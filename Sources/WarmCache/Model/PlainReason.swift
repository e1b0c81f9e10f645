import Foundation

/// An error's reason as a user should read it: the system's words for a file error ("No such
/// file or directory"), never an error domain, a code or a type's name. Every message that
/// quotes an underlying error goes through here (or, for the HTTP stack's errors, through the
/// fetcher's own translation), so no `"\(error)"` of a system error reaches a user.
package enum PlainReason {
    package static func of(_ error: any Error) -> String {
        if let decoding = error as? DecodingError {
            switch decoding {
            case .dataCorrupted(let context) where context.codingPath.isEmpty:
                return "it is not valid JSON"
            case .keyNotFound(let key, _):
                return "the field '\(key.stringValue)' is missing"
            default:
                return "a field has the wrong type or value"
            }
        }
        if let posix = error as? POSIXError {
            return String(cString: strerror(posix.code.rawValue))
        }
        let nsError = error as NSError
        let systemDomains: Set<String> = [NSPOSIXErrorDomain, NSCocoaErrorDomain, NSURLErrorDomain]
        guard systemDomains.contains(nsError.domain) else {
            // WarmCache's own errors describe themselves in plain words.
            if let described = (error as Any) as? any CustomStringConvertible { return described.description }
            return "an unexpected error"
        }
        if let underlying = nsError.userInfo[NSUnderlyingErrorKey] as? NSError, underlying.domain == NSPOSIXErrorDomain {
            return String(cString: strerror(Int32(truncatingIfNeeded: underlying.code)))
        }
        if nsError.domain == NSPOSIXErrorDomain {
            return String(cString: strerror(Int32(truncatingIfNeeded: nsError.code)))
        }
        if nsError.domain == NSCocoaErrorDomain {
            switch CocoaError.Code(rawValue: nsError.code) {
            case .fileNoSuchFile, .fileReadNoSuchFile: return "no such file"
            case .fileReadNoPermission, .fileWriteNoPermission: return "permission denied"
            case .fileWriteOutOfSpace: return "no space left on the device"
            case .fileWriteVolumeReadOnly: return "the volume is read-only"
            case .fileWriteFileExists: return "a file of that name is in the way"
            case .fileReadCorruptFile: return "the file is damaged"
            case .fileReadTooLarge: return "the file is too large to read"
            default: break
            }
        }
        if let description = nsError.userInfo[NSLocalizedDescriptionKey] as? String, !Self.isCoded(description) {
            return description
        }
        return nsError.domain == NSURLErrorDomain ? "the network request failed" : "the file operation failed"
    }

    /// Whether a text names a domain or a code ("The operation could not be completed.
    /// (NSCocoaErrorDomain error 512.)") rather than a reason.
    private static func isCoded(_ text: String) -> Bool {
        text.contains("Domain") || text.contains("error ") && text.contains("(") || text.contains("Code=")
    }
}
