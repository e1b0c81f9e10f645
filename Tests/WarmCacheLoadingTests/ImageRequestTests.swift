import Foundation
import Testing
import WarmCache
import WarmCacheLoading

@Suite struct ImageRequestTests {
    @Test func keepsWhatItWasGiven() {
        let request = ImageRequest(url: URL(string: "https://example.com/a.jpg")!,
                                   size: PointSize(width: 100, height: 50), scale: 3)
        #expect(request.scale == 3)
    }

    @Test func maxPixelSizeIsTheLongestSideInPixelsRoundedUp() {
        let url = URL(string: "https://example.com/a.jpg")!
        #expect(ImageRequest(url: url, size: PointSize(width: 100, height: 50), scale: 3).maxPixelSize == 300)
        #expect(ImageRequest(url: url, size: PointSize(width: 33.4, height: 10), scale: 3).maxPixelSize == 101)
        #expect(ImageRequest(url: url, size: PointSize(width: 0, height: 0), scale: 3).maxPixelSize == 0)
        #expect(ImageRequest(url: url, size: PointSize(width: 80, height: 0), scale: 2).maxPixelSize == 160)
    }
}
