import Foundation
import Testing
import WarmCache
@testable import WarmCacheImaging

/// A streamed original (``SSIMULACRA2Reference/Mode/streamed``) scores exactly as a prepared one:
/// the same Double, bit for bit, on photos cut to odd sizes, images with and without alpha, tiny
/// images and the shared vectors, with the eight-lane kernels and without.
@Suite struct SSIMULACRA2StreamedTests {
    typealias Reference = SSIMULACRA2Reference

    /// The kernels to run: the four-lane Swift code, and the eight-lane one where the processor has it.
    static let kernels: [Bool] = SSIMULACRA2.Wide.available ? [false, true] : [false]

    /// The score of `distorted` against `original` held each way; `#expect`s they are equal.
    static func expectSameScores(_ original: SSIMULACRA2Image, _ distorted: [SSIMULACRA2Image], wide: Bool,
                                 _ name: String) {
        let prepared = Reference(original, mode: .prepared, wide: wide)
        let streamed = Reference(original, mode: .streamed, wide: wide)
        #expect(prepared.mode == .prepared && streamed.mode == .streamed)
        for (index, image) in distorted.enumerated() {
            let expected = prepared.score(image), score = streamed.score(image)
            let label = "\(name) #\(index) (\(original.width)x\(original.height), wide: \(wide))"
            #expect(score.bitPattern == expected.bitPattern, "\(label): streamed \(score), prepared \(expected)")
        }
        // The workspace kept from the first scores gives the same again.
        if let first = distorted.first { #expect(streamed.score(first) == prepared.score(first), "\(name), again") }
    }

    // MARK: - Photos

    @Test(.enabled(if: Photos.isAvailable, Photos.missing), arguments: kernels)
    func photosCutToOddSizes(wide: Bool) throws {
        // (file, x, y, width, height)
        let cuts: [(String, Int, Int, Int, Int)] = [
            ("rocket.jpg", 0, 0, 640, 427), ("rocket.jpg", 200, 100, 257, 131), ("coffee.png", 3, 7, 401, 333),
            ("retina.jpg", 0, 400, 1411, 217), ("hubble_deep_field.jpg", 11, 5, 389, 267),
            ("brick.png", 1, 2, 509, 113),
        ]
        for (file, x, y, width, height) in cuts {
            let photo = try Photos.image(file)
            let original = SSIMULACRA2Tests.crop(photo, x, y, width, height)
            let distorted = [Self.degraded(original, strength: 1), Self.degraded(original, strength: 6)]
            Self.expectSameScores(original, distorted, wide: wide, "\(file) \(width)x\(height)")
        }
    }

    /// A fully opaque alpha channel, on the original, the candidate or both.
    @Test(.enabled(if: Photos.isAvailable, Photos.missing), arguments: kernels)
    func opaqueAlphaChannels(wide: Bool) throws {
        let original = SSIMULACRA2Tests.crop(try Photos.image("rocket.jpg"), 31, 17, 203, 149)
        let distorted = Self.degraded(original, strength: 3)
        let originalRGBA = SSIMULACRA2Tests.addingOpaqueAlpha(original)
        let distortedRGBA = SSIMULACRA2Tests.addingOpaqueAlpha(distorted)
        Self.expectSameScores(originalRGBA, [distorted, distortedRGBA], wide: wide, "opaque original")
        Self.expectSameScores(original, [distortedRGBA], wide: wide, "opaque candidate")
    }

    // MARK: - Alpha

    /// Non-opaque alpha: two backgrounds, the worse score.
    @Test(arguments: kernels)
    func transparentImages(wide: Bool) {
        typealias Alpha = SSIMULACRA2Tests.AlphaCase
        let ramp = Alpha.ramp
        let perturbed = Alpha.perturbed(alpha: ramp), changed = Alpha.unchanged(alpha: { min(255, ramp($0, $1) + 40) })
        Self.expectSameScores(Alpha.original(), [perturbed, changed, Alpha.perturbed(alpha: nil)], wide: wide,
                              "alpha ramp")
        Self.expectSameScores(Alpha.original(alpha: nil), [perturbed], wide: wide, "alpha in the candidate only")
        let pattern = SSIMULACRA2Tests.pattern(width: 131, height: 77, channels: 4)
        Self.expectSameScores(pattern, [SSIMULACRA2Tests.pattern(width: 131, height: 77, channels: 4, seed: 2)],
                              wide: wide, "pattern with alpha")
    }

    // MARK: - Small and odd sizes

    @Test(arguments: kernels)
    func tinyAndOddSizes(wide: Bool) {
        for (width, height) in [(3, 5), (1, 1), (8, 8), (9, 113), (113, 9), (13, 37), (61, 45), (250, 7), (97, 130)] {
            for channels in [3, 4] {
                let original = SSIMULACRA2Tests.pattern(width: width, height: height, channels: channels)
                let distorted = SSIMULACRA2Tests.pattern(width: width, height: height, channels: channels, seed: 4)
                Self.expectSameScores(original, [distorted, original], wide: wide, "\(width)x\(height)x\(channels)")
            }
        }
    }

    // MARK: - The shared vectors

    @Test(.enabled(if: SSIMULACRA2Tests.Vectors.isAvailable, SSIMULACRA2Tests.Vectors.missing), arguments: kernels)
    func vectorsScoreTheSameStreamed(wide: Bool) throws {
        let pairs = try SSIMULACRA2Tests.Vectors.pairs()
        for original in Set(pairs.map(\.reference)).sorted() {
            let image = try SSIMULACRA2Tests.Vectors.image(original)
            let distorted = try pairs.filter { $0.reference == original }.map {
                try SSIMULACRA2Tests.Vectors.image($0.distorted)
            }
            Self.expectSameScores(image, distorted, wide: wide, original)
        }
    }

    // MARK: - Choosing the mode

    @Test func largeOriginalsAreStreamed() {
        let small = SSIMULACRA2Tests.pattern(width: 96, height: 64, channels: 3)
        #expect(Reference(small).mode == .prepared)
        #expect(Reference(small, mode: .streamed).mode == .streamed)
        #expect(Reference.memory(width: 96, height: 64, channels: 3).mode == .prepared)
        // 0.7 megapixels of planes fit under the limit; 0.35 with alpha, which is prepared twice.
        #expect(Reference.memory(width: 960, height: 720, channels: 3).mode == .prepared)
        #expect(Reference.memory(width: 960, height: 720, channels: 4).mode == .streamed)
        #expect(Reference.memory(width: 1200, height: 800, channels: 3).mode == .streamed)
        let wide = SSIMULACRA2Image(width: 1200, height: 800, channels: 3,
                                    pixels: [UInt8](repeating: 90, count: 1200 * 800 * 3))
        #expect(Reference(wide).mode == .streamed)
    }

    @Test func memoryFigures() {
        let (width, height) = (3072, 1920), pixels = Double(width * height)
        let prepared = Reference.memory(width: width, height: height, channels: 3, mode: .prepared)
        let streamed = Reference.memory(width: width, height: height, channels: 3)
        #expect(streamed.mode == .streamed)
        #expect(streamed.reference == width * height * 3)
        // 9 planes at six scales of 4-byte floats, 36 × 4/3 bytes per pixel of the original.
        #expect(abs(Double(prepared.reference) / pixels - 48) < 0.5)
        // The next scales' linear planes (3.75 or 7.5 bytes per pixel) and rows, 1920 rows high.
        #expect((3.75...4.5).contains(Double(prepared.score) / pixels))
        #expect((7.5...8.7).contains(Double(streamed.score) / pixels))
        let alpha = Reference.memory(width: width, height: height, channels: 4, mode: .prepared)
        #expect(alpha.reference == 2 * prepared.reference)
    }

    // MARK: - Helpers

    /// `image` a little blurred (a 3×3 box mixed in) and shifted by a pattern, more with `strength`.
    static func degraded(_ image: SSIMULACRA2Image, strength: Int) -> SSIMULACRA2Image {
        let (width, height, channels) = (image.width, image.height, image.channels)
        var pixels = image.pixels
        for y in 0..<height {
            for x in 0..<width {
                for channel in 0..<min(channels, 3) {
                    var sum = 0
                    for dy in -1...1 {
                        for dx in -1...1 {
                            let sx = min(max(x + dx, 0), width - 1), sy = min(max(y + dy, 0), height - 1)
                            sum += Int(image.pixels[(sy * width + sx) * channels + channel])
                        }
                    }
                    let own = Int(image.pixels[(y * width + x) * channels + channel])
                    let noise = ((x * 7 + y * 13 + channel * 5) % 11 - 5) * strength / 3
                    let value = (own * (8 - strength) + sum / 9 * strength) / 8 + noise
                    pixels[(y * width + x) * channels + channel] = UInt8(min(255, max(0, value)))
                }
            }
        }
        return SSIMULACRA2Image(width: width, height: height, channels: channels, pixels: pixels)
    }

    /// The sample photos in `shared/images` beside the repository's folder.
    enum Photos {
        static let folder = Fixtures.repositoryRoot.deletingLastPathComponent().appendingPathComponent("shared/images")
        static let isAvailable = FileManager.default
            .fileExists(atPath: folder.appendingPathComponent("rocket.jpg").path)
        static let missing: Comment = "the sample photos (shared/images beside the repository) are missing"

        /// A photo's 8-bit RGB pixels.
        static func image(_ name: String) throws -> SSIMULACRA2Image {
            try PerceptualScoring.pixels(encoded: Data(contentsOf: folder.appendingPathComponent(name)))
        }
    }
}
