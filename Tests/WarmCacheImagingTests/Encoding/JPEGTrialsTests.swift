import Foundation
import Testing
import WarmCache
@testable import WarmCacheImaging

/// A quality search encodes JPEG through libjpeg directly: each of its encodes must be the file
/// the libvips saver writes for the same pixels and settings, where both use one libjpeg (Debian's
/// libjpeg-turbo). Homebrew's libvips links mozjpeg, whose files differ from libjpeg-turbo's: there
/// the searches go through libvips instead, and the comparisons below do not apply.
@Suite(.serialized) struct JPEGTrialsTests {
    /// Whether the shim's libjpeg and the one libvips links write the same files here. Asked when
    /// the tests are planned, so it starts the imaging runtime first, as the engine would (libvips
    /// used before that starts itself, with every module it finds).
    static let oneLibjpeg: Bool = {
        _ = Fixtures.engine
        return JPEGTrials.agreesWithLibvips(settings(chroma: nil, quality: 80))
    }()

    static func settings(chroma: Bool?, progressive: Bool = false, quality: Int) -> EncoderSettings {
        var spec = VariantSpec(width: 100, height: nil, format: .jpeg, qualityTarget: 80)
        spec.options.chromaSubsampling = chroma
        spec.options.progressive = progressive
        var settings = EncoderSettings.resolve(spec, defaults: EncoderDefaults())
        settings.quality = quality
        return settings
    }

    /// On Debian both are libjpeg-turbo, so the comparisons run there and never skip unseen.
    @Test func debianRunsTheComparisons() {
        #if os(Linux)
        #expect(Self.oneLibjpeg)
        #endif
    }

    @Test(.enabled(if: oneLibjpeg, "libvips links another libjpeg (mozjpeg): searches go through libvips"))
    func eachEncodeIsTheSaversFile() throws {
        let photo = try Fixtures.decode(try Fixtures.example("coffee.png"))
        let images = [photo, Fixtures.gradient(width: 31, height: 17), Fixtures.gradient(width: 1, height: 1),
                      Fixtures.gradient(width: 8, height: 8)]
        for image in images {
            let pixels = try image.scoringPixels(bands: 3)
            // Full chroma (a target's default), 4:2:0, libvips' own rule (4:4:4 from quality 90).
            for chroma in [nil, true] as [Bool?] {
                for progressive in [false, true] {
                    for quality in [30, 77, 95] {
                        var settings = Self.settings(chroma: chroma, progressive: progressive, quality: quality)
                        #expect(JPEGTrials.applies(to: settings, image: image))
                        let expected = try Encoder.encode(image, settings: settings)
                        #expect(try JPEGTrials.encode(pixels, settings: settings, quality: quality) == expected,
                                "\(image.size.width)x\(image.size.height), chroma \(String(describing: chroma)), progressive \(progressive), quality \(quality)")
                        settings.subsampling = .auto
                        #expect(try JPEGTrials.encode(pixels, settings: settings, quality: quality)
                                == Encoder.encode(image, settings: settings), "automatic chroma, quality \(quality)")
                    }
                }
            }
        }
    }

    @Test("the shim's libjpeg writes the saver's files here (one libjpeg for both, as on Debian)",
          .enabled(if: oneLibjpeg, "libvips links another libjpeg (mozjpeg): searches go through libvips"))
    func agreesWithTheSaverHere() {
        for chroma in [nil, true, false] as [Bool?] {
            for progressive in [false, true] {
                #expect(JPEGTrials.agreesWithLibvips(Self.settings(chroma: chroma, progressive: progressive, quality: 80)))
            }
        }
        #expect(JPEGTrials.decodesAsLibvips)
    }

    @Test("where libvips links another libjpeg (Homebrew's mozjpeg), trials and scoring go through libvips: the same file")
    func fallsBackToTheSaver() throws {
        let data = try Fixtures.example("coffee.png")
        let spec = VariantSpec(width: 120, height: nil, format: .jpeg, qualityTarget: 80)
        let direct = try Check.renderOne(data, spec)
        JPEGTrials.assumeAgreement(false)
        defer { JPEGTrials.assumeAgreement(nil) }
        #expect(!JPEGTrials.applies(to: Self.settings(chroma: nil, quality: 80), image: Fixtures.gradient(width: 8, height: 8)))
        let throughLibvips = try Check.renderOne(data, spec)
        #expect(throughLibvips.data == direct.data)
    }

    @Test func otherImagesGoThroughTheSaver() throws {
        var profiled = Self.settings(chroma: nil, quality: 80)
        profiled.keepICCProfile = true
        let image = Fixtures.gradient(width: 16, height: 16)
        #expect(!JPEGTrials.applies(to: profiled, image: image))
        #expect(!JPEGTrials.applies(to: Self.settings(chroma: nil, quality: 80),
                                    image: Fixtures.gradient(width: 16, height: 16, alpha: true)))
    }
}
