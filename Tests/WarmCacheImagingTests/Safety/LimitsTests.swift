import Foundation
import Testing
import WarmCache
@testable import WarmCacheImaging

/// Limits are enforced from the header, before decoding; bad input is an error, never a crash.
@Suite struct LimitsTests {
    func kind(of body: () throws -> Void) -> ImagingError.Kind? {
        do {
            try body()
            return nil
        } catch let error as ImagingError {
            return error.kind
        } catch {
            return nil
        }
    }

    @Test func pixelBombIsRefusedFromTheHeader() throws {
        let bomb = HostileFiles.pngBomb(width: 50_000, height: 50_000)
        #expect(bomb.count < 100)
        do {
            _ = try Fixtures.engine.open(bomb, name: "bomb.png")
            Issue.record("a 2.5-gigapixel PNG was accepted")
        } catch {
            #expect(error.kind == .tooManyPixels)
            #expect(error.source == "bomb.png")
            #expect(error.description.contains("bomb.png"))
        }
    }

    @Test func theBombHeaderIsValidSoOnlyTheLimitStopsIt() throws {
        let lenient = try ImagingEngine(configuration: ImagingConfiguration(maxPixels: Int.max))
        let source = try lenient.open(HostileFiles.pngBomb(width: 50_000, height: 50_000), name: "bomb.png")
        #expect(source.info.pixelWidth == 50_000 && source.info.pixelHeight == 50_000)
    }

    @Test func gifBombIsRefused() {
        let kind = kind { _ = try Fixtures.engine.open(HostileFiles.gifBomb, name: "bomb.gif").render(
            [VariantSpec(width: 10, height: nil, format: .png)]) }
        #expect(kind == .tooManyPixels || kind == .corruptOrTruncated || kind == .decodeFailed)
    }

    @Test func configuredPixelLimit() throws {
        // coffee.png is 600x400 (240,000 pixels), chelsea.png 451x300 (135,300).
        let small = try ImagingEngine(configuration: ImagingConfiguration(maxPixels: 200_000))
        #expect(kind { _ = try small.open(Fixtures.example("coffee.png"), name: "coffee.png") } == .tooManyPixels)
        #expect(kind { _ = try small.open(Fixtures.example("chelsea.png"), name: "chelsea.png") } == nil)
    }

    @Test func byteLimit() throws {
        let small = try ImagingEngine(configuration: ImagingConfiguration(maxInputBytes: 100_000))
        #expect(kind { _ = try small.open(Fixtures.example("coffee.png"), name: "coffee.png") } == .tooManyBytes)
    }

    @Test func upscaledOutputsAreLimitedToo() throws {
        let source = try Fixtures.engine.open(Fixtures.example("camera.png"), name: "camera.png")
        let huge = VariantSpec(width: 20_000, height: 20_000, allowUpscale: true, format: .png)
        #expect(kind { _ = try source.render([huge]) } == .tooManyPixels)
    }

    @Test(arguments: ["rocket.jpg", "chelsea.png"])
    func truncatedFilesAreErrorsNamingTheSource(name: String) throws {
        let data = try Fixtures.example(name)
        do {
            let source = try Fixtures.engine.open(data.prefix(data.count / 2), name: name)
            _ = try source.render([VariantSpec(width: 100, height: nil, format: .jpeg)])
            Issue.record("a truncated \(name) rendered")
        } catch {
            #expect(error.kind == .corruptOrTruncated)
            #expect(error.source == name)
            #expect(error.libvipsMessage != nil)
        }
    }

    @Test func corruptPNGDataIsAnError() throws {
        var data = try Fixtures.example("coffee.png")
        for index in stride(from: data.count / 3, to: data.count / 3 + 2_000, by: 7) { data[index] ^= 0x5A }
        #expect(kind { _ = try Fixtures.engine.open(data, name: "corrupt.png").placeholder(.averageColor) } == .corruptOrTruncated)
    }

    @Test func lenientModeRendersTruncatedFiles() throws {
        let lenient = try ImagingEngine(configuration: ImagingConfiguration(failOnCorruptData: false))
        let data = try Fixtures.example("rocket.jpg")
        let variant = try lenient.open(data.prefix(data.count / 2), name: "rocket.jpg")
            .render([VariantSpec(width: 100, height: nil, format: .jpeg)])[0]
        #expect(variant.pixelWidth == 100)
    }

    @Test func unsupportedInputs() {
        let svg = Data(#"<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><rect width="10" height="10"/></svg>"#.utf8)
        let pdf = Data("%PDF-1.4\n1 0 obj\n<<>>\nendobj\ntrailer\n<<>>\n%%EOF\n".utf8)
        for (name, bytes) in [("empty", Data()), ("garbage", Data("hello, world".utf8)), ("image.svg", svg), ("doc.pdf", pdf)] {
            #expect(kind { _ = try Fixtures.engine.open(bytes, name: name) } == .unsupportedFormat, "\(name)")
        }
    }

    @Test func invalidSpecs() throws {
        let source = try Fixtures.engine.open(Fixtures.example("camera.png"), name: "camera.png")
        for spec in [VariantSpec(width: 0, height: nil, format: .png), VariantSpec(width: 10, height: -3, format: .png),
                     VariantSpec(width: 10, height: nil, scale: 0, format: .png)] {
            #expect(kind { _ = try source.render([spec]) } == .invalidRequest)
        }
    }

    @Test func randomlyDamagedFilesNeverCrash() throws {
        let originals = try ["rocket.jpg", "chelsea.png"].map { try Fixtures.example($0) }
            + [try Fixtures.encode(Fixtures.gradient(width: 64, height: 48), as: .webp),
               try Fixtures.encode(Fixtures.gradient(width: 64, height: 48), as: .gif)]
        var generator = SplitMix(seed: 42)
        for original in originals {
            for _ in 0..<12 {
                var damaged = original
                for _ in 0..<8 {
                    let index = Int(generator.next() % UInt64(damaged.count))
                    damaged[index] = UInt8(truncatingIfNeeded: generator.next())
                }
                let cut = damaged.prefix(Int(generator.next() % UInt64(damaged.count)) + 1)
                for bytes in [damaged, Data(cut)] {
                    do {
                        _ = try Fixtures.engine.open(bytes, name: "damaged").render(
                            [VariantSpec(width: 32, height: nil, format: .webp)], placeholder: .all)
                    } catch {
                        #expect(error.source == "damaged")
                    }
                }
            }
        }
    }
}
