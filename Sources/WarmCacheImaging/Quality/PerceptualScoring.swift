import CVipsShim
import Foundation
import WarmCache

/// SSIMULACRA2 scores of encoded images against their unencoded pixels, for benchmarks and tests
/// (the warm itself scores inside ``PerceptualEncoder``).
package enum PerceptualScoring {
    /// A reference prepared from a losslessly encoded image (PNG, or any format libvips reads).
    package static func reference(encoded data: Data) throws -> PreparedReference {
        try ImagingRuntime.started()
        let bands = try Self.bands(of: data)
        return PreparedReference(reference: SSIMULACRA2Reference(try DecodedPixels(data, bands: bands).image),
                                 bands: bands)
    }

    /// The score of `data` (any format libvips reads) against `reference`.
    package static func score(_ data: Data, against reference: PreparedReference) throws -> Double {
        reference.reference.score(try DecodedPixels(data, bands: reference.bands).image)
    }

    package struct PreparedReference: @unchecked Sendable {
        let reference: SSIMULACRA2Reference
        let bands: Int
    }

    private static func bands(of data: Data) throws -> Int {
        var width: Int32 = 0, height: Int32 = 0, length = 0
        // Decoding with four bands keeps alpha when there is some; an opaque image is scored as RGB.
        let pixels = data.withUnsafeBytes { buffer in
            wc_decode_pixels8(buffer.baseAddress, buffer.count, 4, &width, &height, &length)
        }
        guard let pixels else { throw VipsCallError.take("decode") }
        defer { wc_free(pixels) }
        var opaque = true
        for index in stride(from: 3, to: length, by: 4) where pixels[index] != 255 {
            opaque = false
            break
        }
        return opaque ? 3 : 4
    }
}
