// Apple platforms only: verified by reading Apple's Core Graphics reference and by the GitHub
// workflow's Apple builds, not by this repository's Linux CI (which does not compile this file).
#if canImport(CoreGraphics)
import CoreGraphics
import WarmCacheLoading

extension DecodedImage {
    /// The bitmap as a `CGImage`, which is what ``ImageIODecoder`` makes; `nil` when another
    /// decoder gave another kind of object.
    package var cgImage: CGImage? {
        guard CFGetTypeID(image) == CGImage.typeID else { return nil }
        return unsafeDowncast(image, to: CGImage.self)
    }
}
#endif
