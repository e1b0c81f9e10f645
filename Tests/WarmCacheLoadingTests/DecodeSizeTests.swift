import Foundation
import Testing
import WarmCache
@testable import WarmCacheLoading
import WarmCacheTestSupport

/// The size a bundle's blob is decoded at for a view, and what shares a decode.
@Suite struct DecodeSizeTests {
    private let url = URL(string: "https://cdn.example.com/a.jpg")!
    private let landscape = PixelSize(width: 800, height: 600)

    private func size(_ width: Double, _ height: Double, scale: Double = 2, of pixels: PixelSize) -> Int {
        ImageSource.decodeSize(for: ImageRequest(url: url, size: PointSize(width: width, height: height), scale: scale),
                               of: pixels)
    }

    /// The decode covers the view's box on both sides, so a view that fills its frame never
    /// enlarges it: a 4:3 image in a 200 × 200 px box is decoded 267 × 200, not 200 × 150.
    @Test func theDecodeCoversTheViewsBox() {
        #expect(size(100, 100, of: landscape) == 267)
        #expect(size(150, 50, scale: 3, of: landscape) == 450)
        #expect(size(50, 150, scale: 2, of: landscape) == 400)
    }

    @Test func aBlobThatFitsTheViewIsDecodedWhole() {
        #expect(size(400, 400, of: landscape) == 0)
        #expect(size(1000, 10, of: landscape) == 0)
        #expect(size(0, 0, of: landscape) == 0)
    }

    @Test func aFreeSideGrowsWithTheBlobsShape() {
        let portrait = PixelSize(width: 300, height: 900)
        // 50 pt wide at 2x is 100 px wide: a 1:3 portrait is then 300 px tall.
        #expect(size(50, 0, of: portrait) == 300)
        // 100 pt tall at 2x: the landscape is 200 px tall, 267 px wide.
        #expect(size(0, 100, of: landscape) == 267)
    }

    @Test func twoURLsWithTheSameBytesShareOneDecode() async throws {
        var fixture = try FixtureBundle()
        let bytes = StandInImages.png(width: 200, height: 150)
        for name in ["a", "b"] {
            fixture.add("https://cdn.example.com/\(name).jpg", width: 100, scale: 2,
                        pixelSize: PixelSize(width: 200, height: 150), bytes: bytes)
        }
        let decoder = StandInDecoder()
        let loader = LoaderFixtures.loader(bundle: try CacheBundle(contentsOf: fixture.write()), decoder: decoder)
        _ = try await loader.image(for: LoaderFixtures.request(URL(string: "https://cdn.example.com/a.jpg")!))
        let second = try await loader.image(for: LoaderFixtures.request(URL(string: "https://cdn.example.com/b.jpg")!))
        #expect(second.origin == .memory)
        #expect(decoder.callCount == 1)
    }
}
