import Foundation
import WarmCache

/// SSIMULACRA2 scores of encoded images against their unencoded pixels, for benchmarks and tests
/// (the warm itself scores inside ``PerceptualEncoder``).
package enum PerceptualScoring {
    /// A reference prepared from a losslessly encoded image (PNG, or any format libvips reads).
    /// An image whose alpha is opaque everywhere is scored as RGB.
    package static func reference(encoded data: Data) throws -> PreparedReference {
        try ImagingRuntime.started()
        var image = try DecodedPixels(data, bands: 4).image
        let opaque = stride(from: 3, to: image.pixels.count, by: 4).allSatisfy { image.pixels[$0] == 255 }
        if opaque {
            var rgb: [UInt8] = []
            rgb.reserveCapacity(image.pixels.count / 4 * 3)
            for index in stride(from: 0, to: image.pixels.count, by: 4) {
                rgb.append(contentsOf: image.pixels[index..<index + 3])
            }
            image = SSIMULACRA2Image(width: image.width, height: image.height, channels: 3, pixels: rgb)
        }
        return PreparedReference(reference: SSIMULACRA2Reference(image), bands: image.channels)
    }

    /// The 8-bit RGB pixels of an encoded image (any format libvips reads), as the scorer reads them.
    package static func pixels(encoded data: Data) throws -> SSIMULACRA2Image {
        try ImagingRuntime.started()
        return try DecodedPixels(data, bands: 3).image
    }

    /// The score of `data` (any format libvips reads) against `reference`.
    package static func score(_ data: Data, against reference: PreparedReference) throws -> Double {
        reference.reference.score(try DecodedPixels(data, bands: reference.bands).image)
    }

    package struct PreparedReference: @unchecked Sendable {
        let reference: SSIMULACRA2Reference
        let bands: Int
    }
}
