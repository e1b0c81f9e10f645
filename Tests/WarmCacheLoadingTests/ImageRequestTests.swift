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
}
