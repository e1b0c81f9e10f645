import CVipsShim
import Foundation

/// A failed libvips call with the text libvips wrote to its error buffer.
///
/// Internal: the engine turns it into an ``ImagingError`` that also names the source and says
/// what kind of failure it was. libvips keeps one error buffer per process, so when several
/// images fail at the same moment a message may carry lines from a neighbour; the operation
/// name and the source name stay exact.
struct VipsCallError: Error {
    /// The operation that failed ("thumbnail", "webpsave", ...).
    var operation: String
    /// What libvips said, trimmed; may be empty.
    var log: String

    /// Captures (and clears) libvips' error buffer for a failed `operation`.
    static func take(_ operation: String) -> VipsCallError {
        let buffer = wc_error_take()
        defer { wc_free(buffer) }
        let text = buffer.map { String(cString: $0) } ?? ""
        return VipsCallError(operation: operation, log: text.trimmingCharacters(in: .whitespacesAndNewlines))
    }
}
