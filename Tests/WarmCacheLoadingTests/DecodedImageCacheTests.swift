import Foundation
import Testing
import WarmCache
@testable import WarmCacheLoading
import WarmCacheTestSupport

@Suite struct DecodedImageCacheTests {
    private func image(_ width: Int, _ height: Int) -> DecodedImage {
        DecodedImage(image: StandInBitmap(pixelSize: PixelSize(width: width, height: height)),
                     pixelSize: PixelSize(width: width, height: height))
    }

    private func key(_ name: String, _ size: Int) -> DecodedImageKey {
        DecodedImageKey(bytes: .blob(sha256: name), maxPixelSize: size)
    }

    @Test func evictsTheLeastRecentlyUsedByBytes() {
        let cache = DecodedImageCache(byteLimit: 100 * 100 * 4 * 2, countLimit: 100)
        cache.insert(image(100, 100), for: key("a", 100))
        cache.insert(image(100, 100), for: key("b", 100))
        _ = cache.image(for: key("a", 100))  // a is now the most recently used
        cache.insert(image(100, 100), for: key("c", 100))
        #expect(cache.count == 2)
        #expect(cache.byteCount == 80_000)
        #expect(cache.contains(key("a", 100)))
        #expect(!cache.contains(key("b", 100)))
        #expect(cache.contains(key("c", 100)))
    }

    @Test func evictsByCountAndKeepsNothingLargerThanItsLimit() {
        let cache = DecodedImageCache(byteLimit: 1_000_000, countLimit: 2)
        for name in ["a", "b", "c"] { cache.insert(image(10, 10), for: key(name, 10)) }
        #expect(cache.count == 2)
        #expect(!cache.contains(key("a", 10)))
        cache.insert(image(600, 600), for: key("huge", 600))
        #expect(!cache.contains(key("huge", 600)))
        #expect(cache.byteCount == 800)
    }

    @Test func aLargerDecodeOrTheWholeImageServesASmallerRequest() {
        let cache = DecodedImageCache(byteLimit: 10_000_000, countLimit: 10)
        cache.insert(image(400, 300), for: key("a", 400))
        #expect(cache.image(for: key("a", 200))?.pixelSize == PixelSize(width: 400, height: 300))
        #expect(cache.image(for: key("a", 800)) == nil)
        #expect(cache.image(for: key("a", 0)) == nil)
        // Asked at 400, came out 200 wide: the whole image, good for any size.
        cache.insert(image(200, 150), for: key("small", 400))
        #expect(cache.image(for: key("small", 1000))?.pixelSize.width == 200)
        #expect(cache.image(for: key("small", 0))?.pixelSize.width == 200)
        // The smallest of those that serve answers.
        cache.insert(image(1000, 750), for: key("a", 0))
        #expect(cache.image(for: key("a", 300))?.pixelSize.width == 400)
        #expect(cache.image(for: key("a", 500))?.pixelSize.width == 1000)
    }

    @Test func givesMemoryBackUnderPressure() {
        let cache = DecodedImageCache(byteLimit: 40_000 * 10, countLimit: 100)
        for index in 0..<10 { cache.insert(image(100, 100), for: key("\(index)", 100)) }
        #expect(cache.byteCount == 400_000)
        cache.relieveMemoryPressure(critical: false)
        #expect(cache.byteCount <= 200_000)
        #expect(cache.contains(key("9", 100)))  // the most recently used stay
        #expect(!cache.contains(key("0", 100)))
        cache.relieveMemoryPressure(critical: true)
        #expect(cache.count == 0 && cache.byteCount == 0)
        #expect(cache.peakByteCount == 400_000)
    }

    @Test func theByteCostIsFourBytesAPixelWithoutOverflow() {
        #expect(image(300, 200).byteCost == 240_000)
        #expect(image(Int(Int32.max), Int(Int32.max)).byteCost > 0)
    }
}
