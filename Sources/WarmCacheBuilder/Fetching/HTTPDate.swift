import Foundation

/// HTTP-date parsing (RFC 9110 §5.6.7), for `Retry-After`.
///
/// Senders must use the IMF-fixdate form (`Sun, 06 Nov 1994 08:49:37 GMT`), but
/// recipients should also accept the two obsolete forms, RFC 850
/// (`Sunday, 06-Nov-94 08:49:37 GMT`) and asctime (`Sun Nov  6 08:49:37 1994`).
enum HTTPDate {
    private static let patterns = [
        "EEE, dd MMM yyyy HH:mm:ss zzz",
        "EEEE, dd-MMM-yy HH:mm:ss zzz",
        "EEE MMM d HH:mm:ss yyyy",
    ]

    /// The date, or `nil` if `text` is in none of the three forms.
    static func parse(_ text: String) -> Date? {
        // asctime pads single-digit days with a space; collapse runs of spaces first.
        let normalized = text.split(separator: " ", omittingEmptySubsequences: true).joined(separator: " ")
        for pattern in patterns {
            // DateFormatter is not Sendable; a fresh one per call is fine at this rate
            // (only 429/503 answers are parsed).
            let formatter = DateFormatter()
            formatter.locale = Locale(identifier: "en_US_POSIX")
            formatter.timeZone = TimeZone(identifier: "GMT")
            formatter.dateFormat = pattern
            if let date = formatter.date(from: normalized) { return date }
        }
        return nil
    }
}
