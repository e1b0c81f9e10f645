import Foundation
import Testing
import WarmCache

/// The runtime's ThumbHash decoder against values published alongside the reference implementation.
@Suite struct ThumbHashDecoderTests {
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

    @Test func decodesAtARequestedSize() throws {
        let image = try #require(ThumbHash.decode(Self.flower, width: 64, height: 40))
        #expect(image.width == 64 && image.height == 40 && image.rgba.count == 64 * 40 * 4)
        #expect(ThumbHash.decode(Self.flower, width: 0, height: 40) == nil)
        // The default size is the requested-size decode at the reference's 32 px box.
        let small = try #require(ThumbHash.decode(Self.flower))
        #expect(ThumbHash.decode(Self.flower, width: small.width, height: small.height) == small)
    }
}
