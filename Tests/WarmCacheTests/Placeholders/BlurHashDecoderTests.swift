import Foundation
import Testing
import WarmCache

/// The runtime's BlurHash decoder against the published example hash.
@Suite struct BlurHashDecoderTests {
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
}
