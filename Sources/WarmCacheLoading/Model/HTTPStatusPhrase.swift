/// The reason phrase of an HTTP status, for messages: "Not Found" for 404.
///
/// Written out rather than taken from `HTTPURLResponse.localizedString(forStatusCode:)`, whose
/// words differ between Apple platforms and Linux and follow the device's language, while the
/// loader's messages are for the developer's logs.
enum HTTPStatusPhrase {
    static func of(_ status: Int) -> String {
        if let phrase = phrases[status] { return phrase }
        switch status {
        case 300..<400: return "a redirect that was not followed"
        case 400..<500: return "a client error"
        case 500..<600: return "a server error"
        default: return "an unexpected status"
        }
    }

    private static let phrases: [Int: String] = [
        204: "No Content", 400: "Bad Request", 401: "Unauthorized", 403: "Forbidden", 404: "Not Found",
        405: "Method Not Allowed", 406: "Not Acceptable", 408: "Request Timeout", 410: "Gone",
        414: "URI Too Long", 415: "Unsupported Media Type", 429: "Too Many Requests",
        451: "Unavailable For Legal Reasons", 500: "Internal Server Error", 501: "Not Implemented",
        502: "Bad Gateway", 503: "Service Unavailable", 504: "Gateway Timeout",
    ]
}
