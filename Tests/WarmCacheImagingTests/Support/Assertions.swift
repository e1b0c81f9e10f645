import Foundation
import Testing
import WarmCache
@testable import WarmCacheImaging

/// Shared checks on rendered output.
enum Check {
    /// Opens and renders with the suite's engine.
    static func render(_ data: Data, name: String = "fixture", _ specs: [VariantSpec]) throws -> [EncodedVariant] {
        try Fixtures.engine.open(data, name: name).render(specs)
    }

    static func renderOne(_ data: Data, name: String = "fixture", _ spec: VariantSpec) throws -> EncodedVariant {
        try render(data, name: name, [spec])[0]
    }

    /// Whether two colours are within `tolerance` on every band.
    static func close(_ actual: [Double], _ expected: [Double], tolerance: Double = 12) -> Bool {
        actual.count >= expected.count && zip(actual, expected).allSatisfy { abs($0 - $1) <= tolerance }
    }

    /// Decodes a variant and checks the decoder agrees with the reported size.
    static func decoded(_ variant: EncodedVariant, sourceLocation: SourceLocation = #_sourceLocation) throws -> VipsImage {
        let image = try Fixtures.decode(variant.data)
        #expect(image.size == PixelSize(width: variant.pixelWidth, height: variant.pixelHeight),
                sourceLocation: sourceLocation)
        return image
    }
}
