import Foundation
import Testing
import WarmCache

/// `ImagePlaceholder.pixels(width:height:)`: the best stored placeholder, at the size asked.
@Suite struct PlaceholderPixelsTests {
    @Test func prefersThumbHashThenBlurHashThenAverageColour() throws {
        let thumbHash = ThumbHashDecoderTests.tux
        let blurHash = BlurHashDecoderTests.readmeHash
        let colour = RGBAColor(red: 10, green: 20, blue: 30)

        let all = ImagePlaceholder(thumbHash: thumbHash, blurHash: blurHash, averageColor: colour)
        #expect(all.pixels(width: 20, height: 10) == ThumbHash.decode(thumbHash, width: 20, height: 10))
        #expect(all.aspectRatio == ThumbHash.aspectRatio(of: thumbHash))

        let blur = ImagePlaceholder(blurHash: blurHash, averageColor: colour)
        #expect(blur.pixels(width: 4, height: 3)?.rgba == BlurHash.decode(blurHash, width: 4, height: 3))

        let flat = try #require(ImagePlaceholder(averageColor: colour).pixels(width: 3, height: 2))
        #expect(flat.rgba == Array(repeating: [UInt8]([10, 20, 30, 255]), count: 6).flatMap { $0 })
    }

    @Test func malformedHashesFallBackAndEmptyGivesNothing() {
        let broken = ImagePlaceholder(thumbHash: Data([1, 2]), blurHash: "nope", averageColor: .white)
        #expect(broken.pixels(width: 2, height: 2)?.rgba == Array(repeating: 255, count: 16))
        #expect(ImagePlaceholder().pixels(width: 8, height: 8) == nil)
        #expect(ImagePlaceholder(averageColor: .white).pixels(width: 0, height: 8) == nil)
    }
}
