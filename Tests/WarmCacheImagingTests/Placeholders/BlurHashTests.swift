import Foundation
import Testing
import WarmCache
@testable import WarmCacheImaging

/// The BlurHash encoder, checked through the runtime's decoder and the algorithm's structure.
@Suite struct BlurHashTests {
    /// The example hash of woltapp/blurhash's README.
    static let readmeHash = "LEHV6nWB2yk8pyo0adR*.7kCMdnj"

    @Test func encodedHashesHaveTheSpecifiedShape() {
        var rgba: [UInt8] = []
        for y in 0..<30 { for x in 0..<40 { rgba += [UInt8(x * 6), UInt8(y * 8), 120, 255] } }
        let hash = BlurHash.encode(width: 40, height: 30, rgba: rgba)
        #expect(hash.count == 4 + 2 * 4 * 3)
        #expect(hash.allSatisfy { Base83.alphabet.contains($0) })
        #expect(hash.first == "L")  // (4 - 1) + (3 - 1) * 9 = 21
        let portrait = BlurHash.encode(width: 40, height: 30, rgba: rgba, components: (3, 4))
        #expect(portrait.count == 4 + 2 * 3 * 4)
    }

    @Test func flatImagesKeepTheirColourExactly() throws {
        let rgba = (0..<16 * 16 * 4).map { index -> UInt8 in [200, 40, 90, 255][index % 4] }
        let hash = BlurHash.encode(width: 16, height: 16, rgba: rgba)
        #expect(BlurHash.averageColor(of: hash) == RGBAColor(red: 200, green: 40, blue: 90))
        // BlurHash's basis (cos(pi * i * x / width), sampled at pixel corners) does not sum to
        // zero over the pixels, so even a flat image has small odd-order AC terms; a large
        // decode still averages back to the colour.
        let decoded = try #require(BlurHash.decode(hash, width: 64, height: 64))
        let average = AverageColor.of(rgba: decoded)
        #expect(abs(Int(average.red) - 200) <= 4 && abs(Int(average.green) - 40) <= 4 && abs(Int(average.blue) - 90) <= 4)
    }

    @Test func dcMatchesTheLinearLightAverage() throws {
        var rgba: [UInt8] = []
        for y in 0..<32 { for x in 0..<48 { rgba += [x < 24 ? 250 : 10, UInt8(y * 7), 60, 255] } }
        let hash = BlurHash.encode(width: 48, height: 32, rgba: rgba)
        #expect(BlurHash.averageColor(of: hash) == AverageColor.of(rgba: rgba))
    }

    @Test func base83RoundTrips() {
        for value in [0, 1, 82, 83, 6_888, 6_889, 16_777_215] {
            #expect(Base83.decode(Base83.encode(value, length: 4)) == value)
        }
        #expect(Base83.encode(21, length: 1) == "L")
        #expect(Base83.decode("~") == 82)
        #expect(Base83.decode("\"") == nil)
    }
}
