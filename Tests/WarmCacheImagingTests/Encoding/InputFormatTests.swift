import Foundation
import Testing
import WarmCache
@testable import WarmCacheImaging

/// Every accepted input format is recognised from its bytes and renders.
@Suite struct InputFormatTests {
    @Test(arguments: ImageFormat.allCases)
    func recognisedAndRendered(format: ImageFormat) throws {
        let data = try Fixtures.encode(Fixtures.gradient(width: 90, height: 60, alpha: format.supportsAlpha), as: format)
        let source = try Fixtures.engine.open(data, name: "input.\(format.fileExtension)")
        #expect(source.info.format == format)
        #expect(source.info.pixelSize == PixelSize(width: 90, height: 60))
        #expect(source.info.hasAlpha == format.supportsAlpha)
        #expect(source.info.byteCount == data.count)
        let variant = try source.render([VariantSpec(width: 45, height: 45, fit: .cover(.attention), format: .png)])[0]
        #expect(variant.pixelWidth == 45 && variant.pixelHeight == 45)
        #expect(variant.hasAlpha == format.supportsAlpha)
        _ = try Check.decoded(variant)
    }
}
