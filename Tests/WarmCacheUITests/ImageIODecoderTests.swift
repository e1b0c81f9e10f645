// ImageIO decoding at a view's size: macOS only, run by the GitHub workflow's macOS job.
#if os(macOS) && canImport(ImageIO)
import Foundation
import Testing
import WarmCacheUI

@Suite struct ImageIODecoderTests {
    let png = SplitFixture.directory.appendingPathComponent("split.png")

    @Test func decodesAFileAtMostMaxPixelSizeOnItsLongestSide() throws {
        let decoded = try ImageIODecoder().decode(EncodedImage(bytes: .file(png), format: .png), maxPixelSize: 16)
        #expect(decoded.pixelSize == PixelSize(width: 16, height: 8))
    }

    @Test func decodesDownloadedBytesAtFullSizeForZero() throws {
        let data = try Data(contentsOf: png)
        let decoded = try ImageIODecoder().decode(EncodedImage(bytes: .data(data), format: nil), maxPixelSize: 0)
        #expect(decoded.pixelSize == PixelSize(width: 64, height: 32))
    }

    @Test func bytesThatAreNotAnImageFailInPlainWords() throws {
        let page = Data("<html><body>Not found</body></html>".utf8)
        let error = try #require(throws: ImageIODecoder.Failure.self) {
            try ImageIODecoder().decode(EncodedImage(bytes: .data(page), format: nil), maxPixelSize: 100)
        }
        #expect(error.description == "the 35 bytes downloaded are not an image this device can decode: "
            + "check that the URL serves an image (not a web page or an error)")
    }
}
#endif
