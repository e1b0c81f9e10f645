import Foundation
import WarmCache

// What differs between Apple platforms and Linux for the loader, in this one file: on Linux
// `URLSession` and `URLCache` live in FoundationNetworking, a module of their own, which is
// re-exported here so that the rest of the target (and an app configuring the loader's session
// on Linux) sees them as Foundation's, as on Apple platforms.
#if canImport(FoundationNetworking)
@_exported import FoundationNetworking
#endif

extension LibC {
    /// A URL cache of responses on disk only, in `directory`: on Apple platforms through the
    /// directory initializer (iOS 13 and later), on Linux through the path one, the only there is.
    static func diskURLCache(capacity: Int, directory: URL) -> URLCache {
        #if canImport(FoundationNetworking)
        URLCache(memoryCapacity: 0, diskCapacity: capacity, diskPath: directory.path)
        #else
        URLCache(memoryCapacity: 0, diskCapacity: capacity, directory: directory)
        #endif
    }
}
