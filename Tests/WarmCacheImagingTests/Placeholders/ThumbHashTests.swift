import Foundation
import Testing
@testable import WarmCacheImaging

/// ThumbHash against values published alongside the reference implementation.
@Suite struct ThumbHashTests {
    /// The flower photo of evanw/thumbhash (hash and decoded averages as published by the
    /// reference's ports, e.g. the C# ThumbHashes tests).
    static let flower = Data([0x93, 0x4A, 0x06, 0x2D, 0x06, 0x92, 0x56, 0xC3, 0x74, 0x05, 0x58, 0x67, 0xDA, 0x8A,
                              0xB6, 0x67, 0x94, 0x90, 0x51, 0x07, 0x19])
    /// Tux, an image with transparency.
    static let tux = Data([0xA1, 0x19, 0x8A, 0x1C, 0x02, 0x38, 0x3A, 0x25, 0xD7, 0x27, 0xF6, 0x8B, 0x97, 0x1F, 0xF7,
                           0xF9, 0x71, 0x7F, 0x80, 0x37, 0x67, 0x58, 0x98, 0x79, 0x06])

    @Test func referenceAverages() throws {
        let flower = try #require(ThumbHash.averageRGBA(of: Self.flower))
        #expect(abs(flower.red - 0.484127015) < 1e-6 && abs(flower.green - 0.341269821) < 1e-6)
        #expect(abs(flower.blue - 0.0793650597) < 1e-6 && flower.alpha == 1)
        let tux = try #require(ThumbHash.averageRGBA(of: Self.tux))
        #expect(abs(tux.red - 0.616402208) < 1e-6 && abs(tux.green - 0.568783104) < 1e-6)
        #expect(abs(tux.blue - 0.386243373) < 1e-6 && abs(tux.alpha - 0.533333361) < 1e-6)
    }

    @Test func referenceAspectRatios() throws {
        let flower = try #require(ThumbHash.aspectRatio(of: Self.flower))
        let tux = try #require(ThumbHash.aspectRatio(of: Self.tux))
        #expect(abs(flower - 0.714285731) < 1e-6)
        #expect(abs(tux - 0.8) < 1e-6)
    }

    @Test func referenceDecodeSize() throws {
        // The hash shown in the ThumbHash demo decodes to a 23x32 opaque image.
        let hash = try #require(Data(base64Encoded: "1QcSHQRnh493V4dIh4eXh1h4kJUI"))
        let image = try #require(ThumbHash.decode(hash))
        #expect(image.width == 23 && image.height == 32)
        #expect(stride(from: 3, to: image.rgba.count, by: 4).allSatisfy { image.rgba[$0] == 255 })
        #expect(Set(image.rgba).count > 2)
        #expect(ThumbHash.decode(hash.prefix(4)) == nil)
    }

    @Test func tuxDecodesWithAlpha() throws {
        let image = try #require(ThumbHash.decode(Self.tux))
        #expect(image.width == 26 && image.height == 32)
        let alphas = stride(from: 3, to: image.rgba.count, by: 4).map { image.rgba[$0] }
        #expect(alphas.contains { $0 < 50 } && alphas.contains { $0 > 200 })
    }

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
}
