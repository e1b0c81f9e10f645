import Foundation
import Testing
import WarmCache
@testable import WarmCacheImaging

/// BlurHash against the published example hashes and the algorithm's structure.
@Suite struct BlurHashTests {
    /// The example hash of woltapp/blurhash's README.
    static let readmeHash = "LEHV6nWB2yk8pyo0adR*.7kCMdnj"

    @Test func referenceDecodeOfTheReadmeHash() throws {
        // Pixels of decode(hash, 4, 3) as produced by the reference TypeScript package.
        let expected: [UInt8] = [
            135, 164, 177, 255, 161, 173, 177, 255, 181, 180, 171, 255, 160, 172, 174, 255,
            124, 154, 169, 255, 148, 148, 154, 255, 164, 145, 134, 255, 146, 152, 155, 255,
            124, 144, 154, 255, 144, 134, 132, 255, 163, 130, 104, 255, 148, 140, 134, 255,
        ]
        let pixels = try #require(BlurHash.decode(Self.readmeHash, width: 4, height: 3))
        #expect(pixels == expected)
    }

    @Test func averageColourIsTheDCField() throws {
        // "HV6n" in base 83 is 0x9C9C9C... decoded from the spec: 17*83³ + 31*83² + 6*83 + 49.
        let value = 17 * 571_787 + 31 * 6_889 + 6 * 83 + 49
        let colour = try #require(BlurHash.averageColor(of: Self.readmeHash))
        #expect(colour == RGBAColor(red: UInt8(value >> 16 & 255), green: UInt8(value >> 8 & 255), blue: UInt8(value & 255)))
        // A 1x1-component hash of pure red decodes to pure red everywhere.
        let red = try #require(BlurHash.decode("00TI:j", width: 3, height: 2))
        #expect(red == (0..<24).map { index -> UInt8 in [255, 0, 0, 255][index % 4] })
    }

    @Test func malformedHashesAreRejected() {
        #expect(BlurHash.decode("LEHV6nWB2yk8pyo0adR*.7kCMdn", width: 4, height: 3) == nil)
        #expect(BlurHash.decode("00TI:\"", width: 4, height: 3) == nil)
        #expect(BlurHash.decode("", width: 4, height: 3) == nil)
    }

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
