// How a view's layout size becomes the loader's request: platform-neutral, so this suite runs on
// Linux too (the rest of this target is macOS-only).
import Foundation
import Testing
import WarmCacheUI

@Suite struct ViewSizingTests {
    let url = URL(string: "https://images.example.com/a.jpg")!

    @Test func sidesAreRoundedUpToWholePoints() {
        let request = ViewSizing.request(url: url, width: 117.33, height: 80, scale: 3)
        #expect(request == ImageRequest(url: url, size: PointSize(width: 118, height: 80), scale: 3))
    }

    @Test func aSideThatIsNotPositiveOrNotANumberIsUnconstrained() {
        let request = ViewSizing.request(url: url, width: -4, height: .nan, scale: 2)
        #expect(request?.size == PointSize(width: 0, height: 0))
    }

    @Test func aScaleThatIsNotPositiveIsOne() {
        #expect(ViewSizing.request(url: url, width: 10, height: 10, scale: 0)?.scale == 1)
    }

    @Test func noURLIsNoRequest() {
        #expect(ViewSizing.request(url: nil, width: 10, height: 10, scale: 2) == nil)
    }

    @Test func onlyASizeWithAreaIsVisible() {
        #expect(ViewSizing.isVisible(width: 10, height: 10))
        #expect(!ViewSizing.isVisible(width: 0, height: 10))
        #expect(!ViewSizing.isVisible(width: 10, height: .infinity))
    }
}
