import Foundation
import Testing
import WarmCache

/// A bundle baked at one scale (`scales: [3]`, what an iPhone app ships) still answers every
/// device: a 2× screen gets the 3× file, which its view decodes down to its own pixel size. When
/// both scales are there, each device gets the smallest file that covers it.
@Suite("Lookups in a bundle baked at one scale")
struct OneScaleLookupTests {
    static let thumb = PointSize(width: 100, height: 100)
    static let source = "https://img.test/photo.jpg"

    /// Opens `bundle`, reading its variant rows from SQLite or from the in-memory index.
    func open(_ bundle: HandMadeBundle, memoryIndex: Bool) throws -> CacheBundle {
        try CacheBundle(contentsOf: bundle.write(), configuration: CacheBundle.Configuration(memoryIndex: memoryIndex))
    }

    @Test("a 2× and a 3× device both get the 3× file when it is the only one", arguments: [false, true])
    func onlyThreeX(memoryIndex: Bool) throws {
        var bundle = try HandMadeBundle()
        bundle.add(Self.source, width: 100, scale: 3, payload: "thumb at 3x")
        let images = try open(bundle, memoryIndex: memoryIndex)
        for scale in [2.0, 3.0] {
            let hit = try #require(try images.bestImage(for: Self.source, size: Self.thumb, scale: scale),
                                   "no answer at scale \(scale)")
            #expect(hit.pixelSize == PixelSize(width: 300, height: 300), "scale \(scale)")
            #expect(try String(decoding: hit.data(), as: UTF8.self) == "thumb at 3x")
        }
    }

    @Test("with 2× and 3× files, a 2× device gets the 2× file and a 3× device the 3× one", arguments: [false, true])
    func smallestThatCovers(memoryIndex: Bool) throws {
        var bundle = try HandMadeBundle()
        bundle.add(Self.source, width: 100, scale: 2, payload: "thumb at 2x")
        bundle.add(Self.source, width: 100, scale: 3, payload: "thumb at 3x")
        let images = try open(bundle, memoryIndex: memoryIndex)
        let twoX = try #require(try images.bestImage(for: Self.source, size: Self.thumb, scale: 2))
        #expect(twoX.pixelSize == PixelSize(width: 200, height: 200))
        #expect(try String(decoding: twoX.data(), as: UTF8.self) == "thumb at 2x")
        let threeX = try #require(try images.bestImage(for: Self.source, size: Self.thumb, scale: 3))
        #expect(threeX.pixelSize == PixelSize(width: 300, height: 300))
    }
}
