import Foundation

/// The URL rules the fetcher enforces, in one place.
enum URLRules {
    /// Schemes the fetcher downloads from and follows redirects to. Local paths are read
    /// by another part of the pipeline, and `file:`/`ftp:` redirects from a web server
    /// are refused (a classic way to make a build read local files).
    static let allowedSchemes: Set<String> = ["http", "https"]

    /// `scheme://host:port` with the default port filled in, for "same origin" checks.
    static func origin(of url: URL) -> String {
        let scheme = url.scheme?.lowercased() ?? ""
        let host = url.host?.lowercased() ?? ""
        let port = url.port ?? (scheme == "https" ? 443 : 80)
        return "\(scheme)://\(host):\(port)"
    }

    /// The key for per-host limits: `host:port`, so two servers on one machine count
    /// separately, like AsyncHTTPClient's connection pools do.
    static func hostKey(of url: URL) -> String {
        let scheme = url.scheme?.lowercased() ?? ""
        let port = url.port ?? (scheme == "https" ? 443 : 80)
        return "\(url.host?.lowercased() ?? ""):\(port)"
    }

    /// Resolves a `Location` header against the URL that sent it and checks its scheme.
    /// - Throws: ``AttemptFailure`` with `invalidRedirect` or `forbiddenRedirect`.
    static func redirectTarget(_ location: String?, from base: URL) throws -> URL {
        guard let location, !location.isEmpty,
              let target = URL(string: location, relativeTo: base)?.absoluteURL
        else {
            throw AttemptFailure(kind: .invalidRedirect(location: location))
        }
        let scheme = target.scheme?.lowercased() ?? ""
        guard allowedSchemes.contains(scheme) else {
            throw AttemptFailure(kind: .forbiddenRedirect(scheme: scheme, location: location))
        }
        guard target.host?.isEmpty == false else {
            throw AttemptFailure(kind: .invalidRedirect(location: location))
        }
        return target
    }
}
