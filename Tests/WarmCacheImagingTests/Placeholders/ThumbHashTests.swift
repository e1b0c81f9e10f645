import Foundation
import Testing
import WarmCache
@testable import WarmCacheImaging

/// The ThumbHash encoder, checked through the runtime's decoder.
@Suite struct ThumbHashTests {
    /// The flower photo of evanw/thumbhash (hash and decoded averages as published by the
    /// reference's ports, e.g. the C# ThumbHashes tests).
    static let flower = Data([0x93, 0x4A, 0x06, 0x2D, 0x06, 0x92, 0x56, 0xC3, 0x74, 0x05, 0x58, 0x67, 0xDA, 0x8A,
                              0xB6, 0x67, 0x94, 0x90, 0x51, 0x07, 0x19])


    @Test func encodingRoundTripsAverageColourAndAspect() throws {
        for (width, height) in [(100, 75), (40, 100), (64, 64)] {
            var rgba: [UInt8] = []
            for y in 0..<height {
                for x in 0..<width { rgba += [UInt8(x * 255 / width), UInt8(y * 255 / height), 90, 255] }
            }
            let hash = ThumbHash.encode(width: width, height: height, rgba: rgba)
            #expect(hash.count <= 25)
            let average = try #require(ThumbHash.averageRGBA(of: hash))
            let expectedRed = Double(rgba.enumerated().filter { $0.offset % 4 == 0 }.map { Int($0.element) }.reduce(0, +))
                / Double(width * height) / 255
            #expect(abs(average.red - expectedRed) < 0.03)
            #expect(abs(average.blue - 90.0 / 255) < 0.03)
            let ratio = try #require(ThumbHash.aspectRatio(of: hash))
            #expect(abs(ratio - Double(width) / Double(height)) < 0.25)
        }
    }

    @Test func reEncodingADecodedReferenceHashIsStable() throws {
        let image = try #require(ThumbHash.decode(Self.flower))
        let again = ThumbHash.encode(width: image.width, height: image.height, rgba: image.rgba)
        let original = try #require(ThumbHash.averageColor(of: Self.flower))
        let repeated = try #require(ThumbHash.averageColor(of: again))
        #expect(abs(Int(original.red) - Int(repeated.red)) <= 6)
        #expect(abs(Int(original.green) - Int(repeated.green)) <= 6)
        #expect(abs(Int(original.blue) - Int(repeated.blue)) <= 6)
        #expect(ThumbHash.aspectRatio(of: again) == ThumbHash.aspectRatio(of: Self.flower))
    }

    @Test func transparencyIsEncoded() throws {
        var rgba: [UInt8] = []
        for _ in 0..<20 { for x in 0..<20 { rgba += [255, 0, 0, x < 10 ? 255 : 0] } }
        let hash = ThumbHash.encode(width: 20, height: 20, rgba: rgba)
        let average = try #require(ThumbHash.averageRGBA(of: hash))
        #expect(abs(average.alpha - 0.5) < 0.07)
        #expect(average.red > 0.9 && average.green < 0.1)
    }

    /// The builder's encoder and the runtime's decoder are one pair: a smooth image survives the
    /// round trip at a requested size with a small mean error per channel.
    @Test func runtimeDecoderReproducesEncodedImages() throws {
        let (width, height) = (60, 40)
        var rgba: [UInt8] = []
        for y in 0..<height {
            for x in 0..<width { rgba += [UInt8(40 + x * 3), UInt8(200 - y * 3), 120, 255] }
        }
        let placeholder = ImagePlaceholder(thumbHash: ThumbHash.encode(width: width, height: height, rgba: rgba),
                                           blurHash: BlurHash.encode(width: width, height: height, rgba: rgba))
        let fromThumbHash = try #require(placeholder.pixels(width: width, height: height))
        let blurHash = try #require(placeholder.blurHash)
        let fromBlurHash = try #require(BlurHash.decode(blurHash, width: width, height: height))
        for decoded in [fromThumbHash.rgba, fromBlurHash] {
            let error = zip(decoded, rgba).enumerated().filter { $0.offset % 4 != 3 }
                .map { abs(Int($0.element.0) - Int($0.element.1)) }.reduce(0, +)
            #expect(Double(error) / Double(width * height * 3) < 12)
        }
    }
}
