import CVipsShim
import Foundation

/// A failed libvips call with the text libvips wrote to its error buffer.
///
/// Internal: the engine turns it into an ``ImagingError`` that also names the source and says
/// what kind of failure it was. libvips keeps one error buffer per process: when two images
/// fail at the same moment, one may take (and clear) the other's text. Takes are serialised by
/// ``lock``, and a decode whose text was lost that way is run again alone, holding the lock, so
/// its own message is heard (``SourceDecoder``). The operation and source names are always exact.
struct VipsCallError: Error {
    /// The operation that failed ("thumbnail", "webpsave", ...).
    var operation: String
    /// What libvips said, trimmed; may be empty.
    var log: String

    /// Captures (and clears) libvips' error buffer for a failed `operation`.
    static func take(_ operation: String) -> VipsCallError {
        lock.lock()
        defer { lock.unlock() }
        let buffer = wc_error_take()
        defer { wc_free(buffer) }
        let text = buffer.map { String(cString: $0) } ?? ""
        return VipsCallError(operation: operation, log: text.trimmingCharacters(in: .whitespacesAndNewlines))
    }

    /// Serialises reading and clearing libvips' process-wide error buffer. Recursive, so a
    /// decode retried while holding it can still take its own message.
    static let lock = NSRecursiveLock()
}
